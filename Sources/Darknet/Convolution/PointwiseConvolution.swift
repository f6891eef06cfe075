import Kernels

/// A 1×1 stride-1 convolution without padding: darknet's im2col is the identity there, so the
/// products are one GEMM per group on the input itself, `filters × C` · `C × (images·H·W)`
/// (a batch is channel-major, so each channel's row holds every image's pixels), each GEMM
/// worker finishing the part of the output it just computed (`Epilogue`). `segments` cuts each
/// image's columns as if it were alone, so a batch gives each image its own bits.
///
/// With OpenBLAS's packed kernel (`ExecutionOptions.usesPackedKernel`) and one group, the
/// weights are packed for it at load (`GEMM.multiplyPacked`): `cblas_sgemm` would pack them
/// again on every call, and on a 1×1 layer that is most of its packing.
struct PointwiseConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × C/groups`, as darknet stores them (batch norm folded in), or packed for `kernel`.
    let weights: [Float]
    /// The kernel the weights were packed for; nil: darknet's layout, multiplied by `cblas_sgemm`.
    let kernel: PackedGEMM.Kernel?

    init(_ spec: ConvolutionSpec, weights: [Float], kernel: PackedGEMM.Kernel?) {
        self.spec = spec
        self.kernel = Self.packs(groups: spec.groups) ? kernel : nil
        let g = spec.group
        self.weights = self.kernel.map { PackedGEMM.packedWeights($0, weights, rows: g.filters, k: g.channels) } ?? weights
    }

    /// Packed weights serve one GEMM over all channels: grouped layers keep darknet's layout.
    static func packs(groups: Int) -> Bool { groups == 1 }

    var method: ConvolutionMethod { .gemm }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }
    func workspaceCount(images: Int, blocking: Blocking) -> Int {
        kernel == nil ? 0 : Self.packedScratchCount(spec.group)
    }
    var poolsRows: Bool { false }

    /// Workspace floats of packed weights: every worker's block of packed columns.
    static func packedScratchCount(_ g: ConvolutionGeometry) -> Int {
        PackedGEMM.maximumWorkers * GEMM.packedScratchCount(k: g.k)
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        let g = spec.group
        let columns = io.images * g.spatial
        weights.withUnsafeBufferPointer { w in
            spec.biases.withUnsafeBufferPointer { biases in
                for group in 0..<spec.groups {
                    let (input, output) = (io.input(spec, group: group), io.output(spec, group: group))
                    let epilogue = io.epilogue(spec, group: group, biases: biases.baseAddress!)
                    func finish(_ filter: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) {
                        epilogue.finish(start, count: count, filter: filter, offset: output.base.distance(to: start))
                    }
                    let seconds = if let kernel {
                        GEMM.multiplyPacked(kernel, m: g.filters, n: columns, k: g.channels, packedA: w.baseAddress!,
                                            b: input.base, ldb: columns, c: output.base, ldc: columns, scratch: workspace,
                                            segments: io.images, threads: context.threads, timeEpilogue: timer != nil,
                                            epilogue: finish)
                    } else {
                        GEMM.multiply(m: g.filters, n: columns, k: g.channels,
                                      a: w.baseAddress! + group * g.filters * g.channels, lda: g.channels,
                                      b: input.base, ldb: columns, c: output.base, ldc: columns,
                                      segments: io.images, threads: context.threads, timeEpilogue: timer != nil,
                                      epilogue: finish)
                    }
                    timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                }
            }
        }
    }
}
