import Kernels

/// Winograd F(4×4, 3×3) (`Winograd`) for 3×3 stride-1 layers without groups, in one of two
/// ways to hold the weights:
/// - transformed at load (`winograd`): `U` (`positions × filters × C`, 4× darknet's floats),
///   each position packed for OpenBLAS's kernel when there is one; it can compute a 2×2 pool
///   that follows;
/// - streamed (`winograd-streamed`): the plain weights in `Winograd.reorderPanels` order,
///   transformed during each pass straight into the packed kernel's layout (darknet's memory).
struct WinogradConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    let weights: [Float]
    let streamed: Bool
    /// The kernel the weights were packed for (transformed), or that streams them; nil:
    /// transformed weights multiplied by `cblas_sgemm`.
    let kernel: PackedGEMM.Kernel?

    /// Streamed, from the plain folded weights (`filters × C × 3 × 3`), consumed: reordered in
    /// place (needs the packed kernel).
    init(_ spec: ConvolutionSpec, streaming plain: consuming [Float], options: ExecutionOptions) {
        let kernels = options.kernels
        let g = spec.geometry
        self.spec = spec
        streamed = true
        kernel = kernels.packed
        precondition(Winograd.streams(filters: g.filters, kernel: kernel), "WinogradConvolution: streamed without the packed kernel")
        var panels = plain
        Winograd.reorderPanels(&panels, filters: g.filters, channels: g.channels, threads: kernels.threads)
        weights = panels
    }

    /// Transformed at load from plain folded weights (`filters × C × 3 × 3`) the caller keeps
    /// (a layer's array, or the weights reader's scratch buffer: no plain copy is allocated).
    init(_ spec: ConvolutionSpec, transforming plain: UnsafeBufferPointer<Float>, options: ExecutionOptions) {
        let kernels = options.kernels
        self.spec = spec
        streamed = false
        kernel = kernels.packed
        weights = Winograd.transformWeights(plain, filters: spec.geometry.filters, channels: spec.geometry.channels,
                                            packed: kernels.packed, threads: kernels.threads)
    }

    var method: ConvolutionMethod { streamed ? .winogradStreamed : .winograd }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }
    var poolsRows: Bool { !streamed && spec.geometry.outHeight % 2 == 0 && spec.geometry.outWidth % 2 == 0 }

    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        Winograd.workspaceCount(geometry, images: context.batch, streamed: context.method == .winogradStreamed,
                                blocking: context.kernels.blocking)
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        weights.withUnsafeBufferPointer { w in
            spec.biases.withUnsafeBufferPointer { biases in
                let held: Winograd.Weights = streamed ? .streamed(w.baseAddress!, kernel: kernel!) : .transformed(w.baseAddress!, kernel: kernel)
                Winograd.forward(spec.geometry, input: io.input(spec, group: 0), images: io.images, weights: held,
                                 output: io.output(spec, group: 0), epilogue: io.epilogue(spec, group: 0, biases: biases.baseAddress!),
                                 pooled: io.pooledView(spec), workspace: workspace, context: context, timer: &timer)
            }
        }
    }
}
