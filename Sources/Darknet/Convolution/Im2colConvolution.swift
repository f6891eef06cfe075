import Kernels

/// darknet's im2col + GEMM (`forward_convolutional_layer`): each group's input unfolded into the
/// `k × columns` matrix (`k = C/groups · size²`) and multiplied by its `filters/groups × k`
/// weights, each GEMM worker finishing the part of the output it just computed (`Epilogue`).
///
/// Short, wide matrices (a detector's first layers: `k` = 27 on an RGB image) run in bands
/// instead (`Im2colBands`: each worker unfolds, multiplies and finishes its own bands of output
/// rows, and can pool them). The others unfold at most `Blocking.im2colFloats` at a time: whole
/// images side by side into one matrix (one GEMM, its columns cut per image as if alone), or,
/// when one image is larger than that, blocks of output rows. Those GEMMs take weights packed
/// at load for OpenBLAS's kernel when there is one and the layer has one group, as
/// `PointwiseConvolution` does. Bands keep darknet's layout for OpenBLAS's direct kernel where
/// there is one; without it, bands of at least `Im2colBands.packedMinimumK` rows take packed
/// weights too (`Im2colBands.packs`), and shallower ones `cblas_sgemm`. With
/// `GEMMLibrary.onednn` (`KernelContext.onednn`) nothing is packed: every product, in blocks
/// or bands, is one `dnnl_sgemm` per part on darknet's layout.
struct Im2colConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × C/groups × size × size`, as darknet stores them (batch norm folded in), or
    /// packed for `kernel`.
    let weights: [Float]
    /// Output rows a band, or nil when the matrix is not short enough for bands.
    let bandRows: Int?
    /// The kernel the weights were packed for; nil: darknet's layout, multiplied by OpenBLAS's
    /// direct kernel (bands, where there is one) or `cblas_sgemm`.
    let kernel: PackedGEMM.Kernel?

    init(_ spec: ConvolutionSpec, weights: [Float], kernels: KernelContext) {
        self.spec = spec
        bandRows = Im2colBands.bandRows(spec.group, kernels.blocking)
        kernel = Self.packs(spec.group, groups: spec.groups, kernels: kernels) ? kernels.productKernel : nil
        let g = spec.group
        self.weights = kernel.map { PackedGEMM.packedWeights($0, weights, rows: g.filters, k: g.k) } ?? weights
    }

    /// True when the GEMMs of a layer of group shape `g` take packed weights: `kernels` has a
    /// packed kernel, the layer one group, and it runs not in bands or in bands that pack
    /// (`Im2colBands.packs`).
    static func packs(_ g: ConvolutionGeometry, groups: Int, kernels: KernelContext) -> Bool {
        guard kernels.productKernel != nil, groups == 1 else { return false }
        return Im2colBands.bandRows(g, kernels.blocking) == nil || Im2colBands.packs(g, kernel: kernels.productKernel)
    }

    var method: ConvolutionMethod { bandRows == nil ? .im2col : .im2colBands }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }

    /// Bands of even rows pool the pairs they finish (one group, an output of even sides).
    var poolsRows: Bool {
        guard let bandRows, spec.groups == 1 else { return false }
        return bandRows % 2 == 0 && spec.geometry.outHeight % 2 == 0 && spec.geometry.outWidth % 2 == 0
    }

    /// One group's: every worker's band (`Im2colBands.workspaceCount`), or the block of the
    /// unfolded matrix followed, with packed weights (`packs`, as `init` decides), by every
    /// worker's block of packed columns.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        let g = ConvolutionSpec.group(geometry, groups: groups)
        let packed = packs(g, groups: groups, kernels: context.kernels)
        if let bandRows = Im2colBands.bandRows(g, context.kernels.blocking) {
            return Im2colBands.workspaceCount(g, bandRows: bandRows, packed: packed)
        }
        return unfoldedCount(g, images: context.batch, blocking: context.kernels.blocking)
            + (packed ? PointwiseConvolution.packedScratchCount(g) : 0)
    }

    /// Floats of the block of the unfolded matrix (not in bands).
    private static func unfoldedCount(_ g: ConvolutionGeometry, images: Int, blocking: Blocking) -> Int {
        let (rows, imagesPerBlock) = blocks(g, images: images, blocking)
        return g.k * (rows == g.outHeight ? imagesPerBlock * g.spatial : rows * g.outWidth)
    }

    /// Output rows unfolded at a time (all of them when an image fits the block), and whole
    /// images unfolded side by side when they do.
    private static func blocks(_ g: ConvolutionGeometry, images: Int, _ blocking: Blocking) -> (rows: Int, images: Int) {
        let rows = max(1, min(g.outHeight, blocking.im2colFloats / max(1, g.k * g.outWidth)))
        return (rows, max(1, min(images, blocking.im2colFloats / max(1, g.k * g.spatial))))
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        precondition(io.pooled == nil || poolsRows, "Im2colConvolution: only bands of even rows are pooled")
        let g = spec.group
        let (blockRows, blockImages) = Self.blocks(g, images: io.images, context.blocking)
        weights.withUnsafeBufferPointer { w in
            spec.biases.withUnsafeBufferPointer { biases in
                for group in 0..<spec.groups {
                    let (input, output) = (io.input(spec, group: group), io.output(spec, group: group))
                    let epilogue = io.epilogue(spec, group: group, biases: biases.baseAddress!)
                    let groupWeights = w.baseAddress! + group * g.filters * g.k
                    if let bandRows {
                        let seconds = Im2colBands.forward(g, input: input, images: io.images, weights: groupWeights,
                                                          output: output, epilogue: epilogue, pooled: io.pooledView(spec),
                                                          bandRows: bandRows, workspace: workspace,
                                                          direct: kernel == nil ? context.productKernel?.direct : nil,
                                                          packed: kernel, onednn: context.onednn, threads: context.threads,
                                                          timed: timer != nil)
                        timer?.lap(\.gemm, shares: (\.im2col, seconds.im2col), (\.epilogue, seconds.epilogue))
                        continue
                    }
                    func finish(_ filter: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) {
                        epilogue.finish(start, count: count, filter: filter, offset: output.base.distance(to: start))
                    }
                    // The GEMM of the unfolded block, whose C starts at `c` inside `output`.
                    func multiply(columns: Int, c: UnsafeMutablePointer<Float>, segments: Int) {
                        let seconds = if let kernel {
                            GEMM.multiplyPacked(kernel, m: g.filters, n: columns, k: g.k, packedA: groupWeights,
                                                b: workspace, ldb: columns, c: c, ldc: output.channelStride,
                                                scratch: workspace + Self.unfoldedCount(g, images: io.images, blocking: context.blocking),
                                                segments: segments, threads: context.threads, timeEpilogue: timer != nil,
                                                epilogue: finish)
                        } else {
                            GEMM.multiply(m: g.filters, n: columns, k: g.k, a: groupWeights, lda: g.k, b: workspace, ldb: columns,
                                          c: c, ldc: output.channelStride, segments: segments, threads: context.threads,
                                          timeEpilogue: timer != nil, onednn: context.onednn, epilogue: finish)
                        }
                        timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                    }
                    if blockRows == g.outHeight {
                        for first in Swift.stride(from: 0, to: io.images, by: blockImages) {
                            let images = min(blockImages, io.images - first)
                            for image in 0..<images {
                                unfold(input, image: first + image, rows: 0..<g.outHeight, rowPitch: images * g.spatial,
                                       into: workspace + image * g.spatial, threads: context.threads)
                            }
                            timer?.lap(\.im2col)
                            multiply(columns: images * g.spatial, c: output.plane(image: first, channel: 0), segments: images)
                        }
                        continue
                    }
                    for image in 0..<io.images {
                        for first in Swift.stride(from: 0, to: g.outHeight, by: blockRows) {
                            let rows = first..<min(g.outHeight, first + blockRows)
                            unfold(input, image: image, rows: rows, rowPitch: rows.count * g.outWidth, into: workspace,
                                   threads: context.threads)
                            timer?.lap(\.im2col)
                            multiply(columns: rows.count * g.outWidth,
                                     c: output.plane(image: image, channel: 0) + first * g.outWidth, segments: 1)
                        }
                    }
                }
            }
        }
    }

    /// Output rows `rows` of `image` unfolded, matrix row r at `into + r·rowPitch`.
    private func unfold(_ input: TensorView, image: Int, rows: Range<Int>, rowPitch: Int, into: UnsafeMutablePointer<Float>,
                        threads: Int) {
        let g = spec.group
        Im2col.unfold(input.plane(image: image, channel: 0), channels: g.channels, height: g.height, width: g.width,
                      size: g.size, stride: g.strideX, pad: g.pad * g.dilation, strideY: g.strideY, dilation: g.dilation,
                      outputRows: rows, channelStride: input.channelStride, rowPitch: rowPitch, into: into, threads: threads)
    }
}
