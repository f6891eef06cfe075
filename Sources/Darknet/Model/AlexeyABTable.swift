import Foundation

/// The pieces of AlexeyAB's layer table (`parse_network_cfg_custom` in his parser.c) that
/// several of his `make_*_layer` lines share. His rows differ from pjreddie's in their widths,
/// in `BF` for `BFLOPs`, and in the layers whose BFLOPs they print and add to the total: his
/// `l.bflops` is a Float, set for convolutions (divided by 32 with `xnor`), maxpools, local
/// average pools, shortcuts and `[crnn]` (its three convolutions).
public enum AlexeyABTable {
    /// His header line, printed before the first layer.
    public static let header = "   layer   filters  size/strd(dil)      input                output"

    /// His index column: `%4d ` before each layer's line.
    public static func index(_ index: Int) -> String { String(format: "%4d ", index) }

    /// His last line: `Total BFLOPS %5.3f ` of the Float sum of every positive `l.bflops`.
    public static func total(_ bflops: Float) -> String { String(format: "Total BFLOPS %5.3f ", Double(bflops)) }

    /// Input and output as his rows print them: `%4d x%4d x%4d -> %4d x%4d x%4d` (width,
    /// height, channels).
    static func shapes(_ input: TensorShape, _ output: TensorShape) -> String {
        String(format: "%4d x%4d x%4d -> %4d x%4d x%4d", input.width, input.height, input.channels,
               output.width, output.height, output.channels)
    }

    /// `%5.3f BF` of his Float `l.bflops`.
    static func bflops(_ value: Float) -> String { String(format: "%5.3f BF", Double(value)) }

    /// `product / 1e9` as his C computes it for maxpools and shortcuts: the product of ints in
    /// 32-bit `int` arithmetic (wrapping as his build does), then divided as a double and
    /// stored in a Float.
    static func bflops(product factors: [Int]) -> Float {
        let product = factors.reduce(Int32(1)) { $0 &* Int32(truncatingIfNeeded: $1) }
        return Float(Double(product) / 1e9)
    }

    /// What `make_convolutional_layer` prints after the index: the kind (`conv  `, `convX `
    /// for XNOR, `convXB` for XNOR with `bin_output`, `convS ` for `share_index`), the filters
    /// (`%5d/%4d ` with groups), `%2dx%2d/%2dx%2d ` for stride_x ≠ stride_y, else
    /// `%2d x%2d/%2d(%1d)` with a dilation, else `%2d x%2d/%2d   `; the shapes and the BFLOPs.
    static func convolution(kind: String, filters: Int, groups: Int, size: Int, strideX: Int, strideY: Int, dilation: Int,
                            input: TensorShape, output: TensorShape, bflops value: Float) -> String {
        var text = kind + (groups > 1 ? String(format: "%5d/%4d ", filters, groups) : String(format: "%5d      ", filters))
        if strideX != strideY {
            text += String(format: "%2dx%2d/%2dx%2d ", size, size, strideX, strideY)
        } else if dilation > 1 {
            text += String(format: "%2d x%2d/%2d(%1d)", size, size, strideX, dilation)
        } else {
            text += String(format: "%2d x%2d/%2d   ", size, size, strideX)
        }
        return text + shapes(input, output) + " " + bflops(value)
    }

    /// His convolution BFLOPs: `2 · nweights · outH · outW / 1e9` in double, stored in a Float.
    static func convolutionBflops(filters: Int, inputChannels: Int, groups: Int, size: Int, output: TensorShape) -> Float {
        let weights = Double(filters) * Double(inputChannels / groups) * Double(size * size)
        return Float(2.0 * weights * Double(output.height) * Double(output.width) / 1e9)
    }

    /// What `make_maxpool_layer` prints after the index for `name` (`max`, `max-depth` or `avg`
    /// for a local average pool): `%2dx%2d/%2d   ` when the strides agree, else
    /// `%2dx%2d/%2dx%2d ` with one less space before it; the shapes and the BFLOPs
    /// (`size² · C · outH · outW / 1e9`).
    static func pool(_ name: String, size: Int, strideX: Int, strideY: Int, input: TensorShape, output: TensorShape) -> String {
        let kernel = strideX == strideY || name == "max-depth"
            ? name.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%2dx%2d/%2d   ", size, size, strideX)
            : name.padding(toLength: 17, withPad: " ", startingAt: 0) + String(format: "%2dx%2d/%2dx%2d ", size, size, strideX, strideY)
        return kernel + shapes(input, output) + " " + bflops(poolBflops(size: size, input: input, output: output))
    }

    /// `l.size · l.size · l.c · l.out_h · l.out_w / 1e9` (`make_maxpool_layer`).
    static func poolBflops(size: Int, input: TensorShape, output: TensorShape) -> Float {
        bflops(product: [size, size, input.channels, output.height, output.width])
    }
}
