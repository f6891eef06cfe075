/// The naive convolution, written from the definition: the reference the fast im2col + GEMM
/// path is tested against. Input `C×H×W` → `filters × outH × outW`, weights laid out as
/// darknet stores them: `filters × (C/groups) × size × size`. No bias, no activation.
/// `strideY` (default `stride`) and `dilation` follow AlexeyAB's `stride_y` and `dilation`.
public enum ReferenceConvolution {
    public static func forward(input: [Float], channels: Int, height: Int, width: Int,
                               weights: [Float], filters: Int, size: Int, stride: Int, pad: Int,
                               groups: Int, strideY: Int? = nil, dilation: Int = 1) -> [Float] {
        // AlexeyAB's geometry: taps `dilation` apart, the border `pad · dilation` wide.
        let strideY = strideY ?? stride
        let border = pad * dilation, extent = dilation * (size - 1) + 1
        let outHeight = (height + 2 * border - extent) / strideY + 1
        let outWidth = (width + 2 * border - extent) / stride + 1
        let channelsPerGroup = channels / groups
        let filtersPerGroup = filters / groups
        var output = [Float](repeating: 0, count: filters * outHeight * outWidth)
        for f in 0..<filters {
            let group = f / filtersPerGroup
            for oy in 0..<outHeight {
                for ox in 0..<outWidth {
                    var sum: Double = 0
                    for gc in 0..<channelsPerGroup {
                        let c = group * channelsPerGroup + gc
                        for ky in 0..<size {
                            for kx in 0..<size {
                                let y = oy * strideY + ky * dilation - border
                                let x = ox * stride + kx * dilation - border
                                guard y >= 0, y < height, x >= 0, x < width else { continue }
                                let w = weights[((f * channelsPerGroup + gc) * size + ky) * size + kx]
                                sum += Double(w) * Double(input[(c * height + y) * width + x])
                            }
                        }
                    }
                    output[(f * outHeight + oy) * outWidth + ox] = Float(sum)
                }
            }
        }
        return output
    }
}
