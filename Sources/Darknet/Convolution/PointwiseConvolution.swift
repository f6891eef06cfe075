import Kernels

/// A 1×1 stride-1 convolution without padding: darknet's im2col is the identity there, so the
/// products are one GEMM per group on the input itself, `filters × C` · `C × (images·H·W)`
/// (a batch is channel-major, so each channel's row holds every image's pixels), each GEMM
/// worker finishing the part of the output it just computed (`Epilogue`). `segments` cuts each
/// image's columns as if it were alone, so a batch gives each image its own bits.
///
/// With OpenBLAS's packed kernel (`ExecutionOptions.usesPackedKernel`) and one group, the
/// weights are packed for it at load (`GEMM.multiplyPacked`): `cblas_sgemm` would pack them
/// again on every call, and on a 1×1 layer that is most of its packing. Where that kernel has a
/// direct routine (AVX-512 cores) and the layer is small enough (`runsDirect`), nothing is
/// packed at all: the weights stay in darknet's layout and the input is read where it lies
/// (`GEMM.multiplyDirect`). With `GEMMLibrary.onednn` (`KernelContext.onednn`) neither: the
/// weights stay in darknet's layout and each part of the product is one `dnnl_sgemm`.
struct PointwiseConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × C/groups`, as darknet stores them (batch norm folded in), or packed for `kernel`.
    let weights: [Float]
    /// The kernel the weights were packed for; nil: darknet's layout.
    let kernel: PackedGEMM.Kernel?
    /// OpenBLAS's direct kernel, which multiplies darknet's layout; nil: `kernel`, else `cblas_sgemm`.
    let direct: PackedGEMM.DirectFunction?

    init(_ spec: ConvolutionSpec, weights: [Float], kernel: PackedGEMM.Kernel?) {
        self.spec = spec
        let g = spec.group
        let kernel = Self.packs(groups: spec.groups) ? kernel : nil
        direct = Self.runsDirect(g) ? kernel?.direct : nil
        self.kernel = Self.packsColumns(g, groups: spec.groups, kernel: kernel) ? kernel : nil
        self.weights = self.kernel.map { PackedGEMM.packedWeights($0, weights, rows: g.filters, k: g.channels) } ?? weights
    }

    /// True when a layer of group shape `g` packs its weights at load and its input in each
    /// product with `kernel` (which then needs `packedScratchCount` floats of workspace): one
    /// group, and not multiplied by the direct kernel.
    static func packsColumns(_ g: ConvolutionGeometry, groups: Int, kernel: PackedGEMM.Kernel?) -> Bool {
        guard let kernel, packs(groups: groups) else { return false }
        return kernel.direct == nil || !runsDirect(g)
    }

    /// True when a layer of group shape `g` multiplies with the direct kernel where there is one:
    /// at most 128 channels, and at most 128 filters unless the grid has `directWideGrid` pixels
    /// or more. It saves packing the input, which the packed kernel shares among fewer products
    /// the fewer filters there are. Above 128 channels it loses to the packed kernel; with many
    /// filters it wins only on large grids, where each packed input would serve few products
    /// for its size (yolov7-tiny's 1×1 layers, measured both ways: docs/bench-log.md).
    static func runsDirect(_ g: ConvolutionGeometry) -> Bool {
        g.channels <= 128 && (g.filters <= 128 || g.spatial >= directWideGrid)
    }

    /// Fewest output pixels for which a layer of more than 128 filters (and at most 128
    /// channels) takes the direct kernel: 52×52 and up.
    static let directWideGrid = 2048

    /// Packed weights serve one GEMM over all channels: grouped layers keep darknet's layout.
    static func packs(groups: Int) -> Bool { groups == 1 }

    var method: ConvolutionMethod { .gemm }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }
    /// `packedScratchCount` when the weights are packed (`packsColumns`, as `init` decides), else none.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        let g = ConvolutionSpec.group(geometry, groups: groups)
        return packsColumns(g, groups: groups, kernel: context.kernels.productKernel) ? packedScratchCount(g) : 0
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
                    let seconds = if let direct {
                        GEMM.multiplyDirect(direct, m: g.filters, n: columns, k: g.channels, a: w.baseAddress!, lda: g.channels,
                                            b: input.base, ldb: columns, c: output.base, ldc: columns, segments: io.images,
                                            threads: context.threads, timeEpilogue: timer != nil, epilogue: finish)
                    } else if let kernel {
                        GEMM.multiplyPacked(kernel, m: g.filters, n: columns, k: g.channels, packedA: w.baseAddress!,
                                            b: input.base, ldb: columns, c: output.base, ldc: columns, scratch: workspace,
                                            segments: io.images, threads: context.threads, timeEpilogue: timer != nil,
                                            epilogue: finish)
                    } else {
                        GEMM.multiply(m: g.filters, n: columns, k: g.channels,
                                      a: w.baseAddress! + group * g.filters * g.channels, lda: g.channels,
                                      b: input.base, ldb: columns, c: output.base, ldc: columns,
                                      segments: io.images, threads: context.threads, timeEpilogue: timer != nil,
                                      onednn: context.onednn, epilogue: finish)
                    }
                    timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                }
            }
        }
    }
}
