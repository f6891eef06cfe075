import Kernels

/// Winograd for 3×3 stride-2 layers without groups (`WinogradStride2`: 2×2 output tiles from
/// 5×5 windows, 25 products per tile instead of 36), weights transformed at load: `U`
/// (`25 × filters × C`, 25/9 of darknet's floats), each position packed for OpenBLAS's kernel
/// when there is one.
struct WinogradStride2Convolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    let weights: [Float]
    /// The kernel the weights were packed for; nil: plain, multiplied by `cblas_sgemm`.
    let kernel: PackedGEMM.Kernel?

    /// From the plain folded weights (`filters × C × 3 × 3`).
    init(_ spec: ConvolutionSpec, plain: UnsafeBufferPointer<Float>, options: ExecutionOptions) {
        let kernels = options.kernels
        self.spec = spec
        kernel = kernels.packed
        weights = WinogradStride2.transformWeights(plain, filters: spec.geometry.filters, channels: spec.geometry.channels,
                                                   packed: kernels.packed, threads: kernels.threads)
    }

    var method: ConvolutionMethod { .winogradStride2 }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }
    var poolsRows: Bool { false }

    /// Passes of one image: the batch does not count.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        WinogradStride2.workspaceCount(geometry, blocking: context.kernels.blocking)
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        precondition(io.pooled == nil, "WinogradStride2Convolution: no pool is fused into a stride-2 layer")
        weights.withUnsafeBufferPointer { u in
            spec.biases.withUnsafeBufferPointer { biases in
                WinogradStride2.forward(spec.geometry, input: io.input(spec, group: 0), images: io.images, u: u.baseAddress!,
                                        kernel: kernel, output: io.output(spec, group: 0),
                                        epilogue: io.epilogue(spec, group: 0, biases: biases.baseAddress!), workspace: workspace,
                                        context: context, timer: &timer)
            }
        }
    }
}
