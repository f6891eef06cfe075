import Kernels

/// AlexeyAB's XNOR convolution (`xnor=1`, XNOR-Net: tiny-yolo_xnor, yolov3-tiny_xnor,
/// darknet53_448_xnor) as his CPU inference computes it (`calculate_binary_weights`, then
/// the bit-packed `gemm_nn_custom_bin_mean_transposed`): every folded weight and every input
/// value becomes its sign, +1 when `> 0` and −1 otherwise — padding too, as his packed bits
/// hold 0 there — and output `(f, p) = mean_f · Σ sign(w)·sign(x)`, then the bias and the
/// activation. `mean_f` is the mean of filter f's `|w|` (`binarize_weights`: a Float running
/// sum of `fabs` taken in double, divided by `k`).
///
/// The sums of ±1 are integers below 2²⁴, exact in Float whatever the order of the additions,
/// so a GEMM of the signs gives his counts bit for bit (`2·count − k`), and `· mean_f` his
/// products. One group, stride as wide as high, no dilation (his bit path assumes them).
struct XnorConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × k`: the sign of each folded weight, +1 (`w > 0`) or −1.
    let signs: [Float]
    /// Per filter, the mean `|w|` of its folded weights.
    let means: [Float]

    init(_ spec: ConvolutionSpec, weights: [Float]) {
        self.spec = spec
        let (filters, k) = (spec.geometry.filters, spec.geometry.k)
        var signs = [Float](repeating: -1, count: filters * k)
        var means = [Float](repeating: 0, count: filters)
        for f in 0..<filters {
            var sum: Float = 0
            for i in 0..<k {
                let w = weights[f * k + i]
                sum = Float(Double(sum) + Double(abs(w)))
                if w > 0 { signs[f * k + i] = 1 }
            }
            means[f] = sum / Float(k)
        }
        (self.signs, self.means) = (signs, means)
    }

    var method: ConvolutionMethod { .xnor }
    var parameterBytes: Int { (signs.count + means.count + spec.biases.count) * MemoryLayout<Float>.stride }
    var poolsRows: Bool { false }

    /// One image's unfolded signs, `k × outH·outW`.
    static func workspaceCount(_ geometry: ConvolutionGeometry, groups: Int, _ context: PlanningContext) -> Int {
        geometry.k * geometry.spatial
    }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        let g = spec.geometry
        let (input, output) = (io.input(spec, group: 0), io.output(spec, group: 0))
        signs.withUnsafeBufferPointer { signs in
            means.withUnsafeBufferPointer { means in
                spec.biases.withUnsafeBufferPointer { biases in
                    let epilogue = io.epilogue(spec, group: 0, biases: biases.baseAddress!)
                    func finish(_ filter: Int, _ start: UnsafeMutablePointer<Float>, _ count: Int) {
                        for i in 0..<count { start[i] *= means[filter] }
                        epilogue.finish(start, count: count, filter: filter, offset: output.base.distance(to: start))
                    }
                    for image in 0..<io.images {
                        Self.unfoldSigns(input, image: image, g, into: workspace)
                        timer?.lap(\.im2col)
                        let seconds = GEMM.multiply(m: g.filters, n: g.spatial, k: g.k, a: signs.baseAddress!, lda: g.k,
                                                    b: workspace, ldb: g.spatial, c: output.plane(image: image, channel: 0),
                                                    ldc: output.channelStride, segments: 1, threads: context.threads,
                                                    timeEpilogue: timer != nil, epilogue: finish)
                        timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                    }
                }
            }
        }
    }

    /// darknet's im2col of `sign(x)` (+1 for `x > 0`, −1 otherwise, −1 where the window is past
    /// the border): row `(c·size + ky)·size + kx`, column `oy·outW + ox`.
    static func unfoldSigns(_ input: TensorView, image: Int, _ g: ConvolutionGeometry, into out: UnsafeMutablePointer<Float>) {
        for c in 0..<g.channels {
            let plane = input.plane(image: image, channel: c)
            for ky in 0..<g.size {
                for kx in 0..<g.size {
                    let row = out + ((c * g.size + ky) * g.size + kx) * g.spatial
                    for oy in 0..<g.outHeight {
                        let y = oy * g.strideY + ky - g.pad
                        for ox in 0..<g.outWidth {
                            let x = ox * g.strideX + kx - g.pad
                            let inside = y >= 0 && y < g.height && x >= 0 && x < g.width
                            row[oy * g.outWidth + ox] = inside && plane[y * g.width + x] > 0 ? 1 : -1
                        }
                    }
                }
            }
        }
    }
}
