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

    /// From the plain folded weights (`filters × C × 3 × 3`), consumed: reordered in place when
    /// `streamed` (which needs the packed kernel), else transformed.
    init(_ spec: ConvolutionSpec, plain: consuming [Float], streamed: Bool, options: ExecutionOptions) {
        let kernels = options.kernels
        let g = spec.geometry
        self.spec = spec
        self.streamed = streamed
        kernel = kernels.packed
        if streamed {
            precondition(Winograd.streams(filters: g.filters, kernel: kernel), "WinogradConvolution: streamed without the packed kernel")
            var panels = plain
            Winograd.reorderPanels(&panels, filters: g.filters, channels: g.channels, threads: kernels.threads)
            weights = panels
        } else {
            weights = plain.withUnsafeBufferPointer {
                Winograd.transformWeights($0, filters: g.filters, channels: g.channels, packed: kernels.packed,
                                          threads: kernels.threads)
            }
        }
    }

    /// Transformed at load from plain folded weights the caller keeps (the weights reader's
    /// scratch buffer: the plain copy is never allocated).
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

    func workspaceCount(images: Int, blocking: Blocking) -> Int {
        Winograd.workspaceCount(spec.geometry, images: images, streamed: streamed, blocking: blocking)
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
