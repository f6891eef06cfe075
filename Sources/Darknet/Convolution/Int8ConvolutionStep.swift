import Kernels

extension Int8Convolution {
    /// One group of one forward pass: its operands, and the product in the route's layout.
    struct Step {
        let route: Int8Convolution
        let io: ConvolutionIO
        let group: Int
        let biases: UnsafePointer<Float>
        let weights: UnsafePointer<Int8>
        /// The whole quantized input (every group).
        let quantized: UnsafeMutablePointer<Int8>
        /// Floats of one channel of the batch (`images · H · W`).
        let planeCount: Int
        /// The workspace after the quantized input.
        let scratch: UnsafeMutablePointer<Int8>
        let context: KernelContext

        private var g: ConvolutionGeometry { route.spec.group }
        private var first: Int { group * g.filters }
        private var groupWeights: UnsafePointer<Int8> { weights + first * g.k }
        private var groupInput: UnsafeMutablePointer<Int8> { quantized + group * g.channels * planeCount }
        private var output: MutableTensorView { io.output(route.spec, group: group) }

        func run(timer: inout PhaseTimer?) {
            let epilogue = io.epilogue(route.spec, group: group, biases: biases)
            let output = self.output, compensations = route.compensations, scales = route.scales, first = self.first
            /// Filter `filter`'s row of sums at `start`, turned into its outputs there.
            func finish(_ filter: Int, _ start: UnsafeMutableRawPointer, _ count: Int) {
                Quantization.dequantize(start, count: count, compensation: compensations[first + filter], scale: scales[first + filter])
                let floats = start.assumingMemoryBound(to: Float.self)
                epilogue.finish(floats, count: count, filter: filter, offset: output.base.distance(to: floats))
            }
            let library = route.library
            switch route.layout {
            case .pointwise:
                Int8GEMM.multiply(library, m: g.filters, n: planeCount, k: g.k, a: groupWeights, lda: g.k, b: groupInput,
                                  ldb: planeCount, c: UnsafeMutableRawPointer(output.base), ldc: output.channelStride,
                                  segments: io.images, threads: context.threads, epilogue: finish)
                timer?.lap(\.gemm)
            case .bands(let rows):
                Int8Bands.forward(library, g, input: groupInput, images: io.images, channelStride: planeCount,
                                  padding: route.input.zero, weights: groupWeights, output: output, bandRows: rows,
                                  workspace: scratch, threads: context.threads, epilogue: finish)
                timer?.lap(\.gemm)
            case .blocks:
                runBlocks(timer: &timer, finish)
            case .transposed:
                runTransposed(timer: &timer, epilogue)
            }
        }

        /// `blocks`: each image's output rows unfolded a block at a time, each block's product
        /// cut among the workers.
        private func runBlocks(timer: inout PhaseTimer?, _ finish: Int8GEMM.RowEpilogue) {
            let rowsPerBlock = max(1, min(g.outHeight, 4 * context.blocking.im2colFloats / max(1, g.k * g.outWidth)))
            for image in 0..<io.images {
                for top in Swift.stride(from: 0, to: g.outHeight, by: rowsPerBlock) {
                    let rows = top..<min(g.outHeight, top + rowsPerBlock)
                    unfold(image: image, rows: rows, padding: route.input.zero)
                    timer?.lap(\.im2col)
                    let c = output.plane(image: image, channel: 0) + top * g.outWidth
                    Int8GEMM.multiply(route.library, m: g.filters, n: rows.count * g.outWidth, k: g.k, a: groupWeights, lda: g.k,
                                      b: scratch, ldb: rows.count * g.outWidth, c: UnsafeMutableRawPointer(c),
                                      ldc: output.channelStride, threads: context.threads, epilogue: finish)
                    timer?.lap(\.gemm)
                }
            }
        }

        /// `transposed`: each image unfolded whole (a 1×1 layer's input read as it is), its
        /// product `Xᵀ · Wᵀ` into the workspace, each filter's column of it dequantized into
        /// its output row and finished.
        private func runTransposed(timer: inout PhaseTimer?, _ epilogue: Epilogue) {
            let pointwise = g.size == 1 && g.strideX == 1 && g.strideY == 1 && g.pad == 0
            let sums = UnsafeMutableRawPointer(scratch + (pointwise ? 0 : (g.k * g.spatial + 63) & ~63))
            let output = self.output, compensations = route.compensations, scales = route.scales, first = self.first
            for image in 0..<io.images {
                let unfolded: UnsafeRawPointer
                let pitch: Int
                if pointwise {
                    (unfolded, pitch) = (UnsafeRawPointer(groupInput + image * g.spatial), planeCount)
                } else {
                    unfold(image: image, rows: 0..<g.outHeight, padding: Int8(truncatingIfNeeded: route.input.zeroPoint))
                    (unfolded, pitch) = (UnsafeRawPointer(scratch), g.spatial)
                }
                timer?.lap(\.im2col)
                Int8GEMM.multiplyTransposed(route.library, m: g.filters, n: g.spatial, k: g.k,
                                            input: unfolded.assumingMemoryBound(to: UInt8.self), lda: pitch, weights: groupWeights,
                                            scratch: sums, threads: context.threads) { filter, column, count, stride in
                    let row = output.plane(image: image, channel: filter)
                    Quantization.dequantize(column: column, count: count, stride: stride,
                                            compensation: compensations[first + filter], scale: scales[first + filter], into: row)
                    epilogue.finish(row, count: count, filter: filter, offset: output.base.distance(to: row))
                }
                timer?.lap(\.gemm)
            }
        }

        /// Output rows `rows` of `image` unfolded into `scratch` (`padding` outside the image).
        private func unfold(image: Int, rows: Range<Int>, padding: Int8) {
            Im2col.unfold(groupInput + image * g.height * g.width, padding: padding, channels: g.channels, height: g.height,
                          width: g.width, size: g.size, stride: g.strideX, pad: g.pad * g.dilation, strideY: g.strideY,
                          dilation: g.dilation, outputRows: rows, channelStride: planeCount, into: scratch,
                          threads: context.threads)
        }
    }
}
