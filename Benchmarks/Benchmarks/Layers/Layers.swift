// One layer at a time, at the shapes it has in yolov3 (yolov3-tiny for maxpool, which yolov3
// lacks) at 416×416. Each network is built from a small cfg with synthetic weights; only the
// layer under test is measured (see LayerUnderTest.run), the layers before it just make its
// inputs. Convolutions report MFLOPS (darknet's FLOP count), the others MB/s moved.
import Benchmark
import BenchmarkSupport
import Darknet

let benchmarks: @Sendable () -> Void = {
    for shape in ConvolutionShape.yolov3 {
        Benchmark(shape.name, configuration: shortConfiguration(rates: [Throughput.megaflops])) { (benchmark: Benchmark, conv: LayerUnderTest) in
            let elapsed = try conv.run(benchmark)
            benchmark.measurement(Throughput.megaflops,
                                  Throughput.value(conv.layer.bflops * 1e9, in: elapsed, per: .microseconds(1)))
        } setup: {
            try shape.checkAgainstYolov3Cfg()
            return LayerUnderTest(network: try syntheticNetwork(cfg: shape.cfg, name: shape.name), index: 0)
        }
    }
    for memoryBound in MemoryBoundLayer.all {
        Benchmark(memoryBound.name, configuration: shortConfiguration(rates: [Throughput.megabytesPerSecond])) { (benchmark: Benchmark, layer: LayerUnderTest) in
            let elapsed = try layer.run(benchmark)
            benchmark.measurement(Throughput.megabytesPerSecond,
                                  Throughput.value(Double(memoryBound.bytesMoved), in: elapsed, per: .microseconds(1)))
        } setup: {
            let network = try syntheticNetwork(cfg: memoryBound.cfg, name: memoryBound.name)
            return LayerUnderTest(network: network, index: network.model.layers.count - 1)
        }
    }
}

/// One of yolov3's convolutions at 416: batch-normalized, leaky, `pad=1`.
struct ConvolutionShape: Sendable {
    /// Its index in yolov3.cfg.
    var layer: Int
    var size: Int
    var stride: Int
    /// Output width and height.
    var grid: Int
    var inputChannels: Int
    var filters: Int

    var inputGrid: Int { grid * stride }

    /// One per output grid (208, 104, 52, 26, 13) and kind (3×3 stride 1, 3×3 stride 2, 1×1):
    /// the first such layer of `darknet-swift summary yolov3.cfg --size 416` (checked against
    /// the cfg by `checkAgainstYolov3Cfg` when it has been fetched).
    static let yolov3: [ConvolutionShape] = [
        .init(layer: 3, size: 3, stride: 1, grid: 208, inputChannels: 32, filters: 64),
        .init(layer: 7, size: 3, stride: 1, grid: 104, inputChannels: 64, filters: 128),
        .init(layer: 14, size: 3, stride: 1, grid: 52, inputChannels: 128, filters: 256),
        .init(layer: 39, size: 3, stride: 1, grid: 26, inputChannels: 256, filters: 512),
        .init(layer: 64, size: 3, stride: 1, grid: 13, inputChannels: 512, filters: 1024),
        .init(layer: 1, size: 3, stride: 2, grid: 208, inputChannels: 32, filters: 64),
        .init(layer: 5, size: 3, stride: 2, grid: 104, inputChannels: 64, filters: 128),
        .init(layer: 12, size: 3, stride: 2, grid: 52, inputChannels: 128, filters: 256),
        .init(layer: 37, size: 3, stride: 2, grid: 26, inputChannels: 256, filters: 512),
        .init(layer: 62, size: 3, stride: 2, grid: 13, inputChannels: 512, filters: 1024),
        .init(layer: 2, size: 1, stride: 1, grid: 208, inputChannels: 64, filters: 32),
        .init(layer: 6, size: 1, stride: 1, grid: 104, inputChannels: 128, filters: 64),
        .init(layer: 13, size: 1, stride: 1, grid: 52, inputChannels: 256, filters: 128),
        .init(layer: 38, size: 1, stride: 1, grid: 26, inputChannels: 512, filters: 256),
        .init(layer: 63, size: 1, stride: 1, grid: 13, inputChannels: 1024, filters: 512),
    ]

    var name: String {
        "conv \(size)x\(size)/\(stride) \(inputGrid)x\(inputGrid)x\(inputChannels) -> \(grid)x\(grid)x\(filters) (yolov3 layer \(layer))"
    }

    var cfg: String {
        """
        [net]
        width=\(inputGrid)
        height=\(inputGrid)
        channels=\(inputChannels)

        [convolutional]
        batch_normalize=1
        filters=\(filters)
        size=\(size)
        stride=\(stride)
        pad=1
        activation=leaky
        """
    }

    /// When yolov3.cfg has been fetched, throws if its layer `layer` at 416 is not this shape.
    func checkAgainstYolov3Cfg() throws {
        guard let path = DataFiles.optional("cfg/yolov3.cfg") else { return }
        let model = try ModelDescription(contentsOf: path, width: 416, height: 416)
        guard layer < model.layers.count, case .convolutional(let conv) = model.layers[layer].kind,
              conv.size == size, conv.stride == stride, conv.filters == filters, conv.batchNormalize,
              conv.activation == .leaky, model.layers[layer].input.channels == inputChannels,
              model.layers[layer].input.width == inputGrid, model.layers[layer].output.width == grid
        else {
            throw ShapeMismatch(description: "\(path): layer \(layer) is not \(name)")
        }
    }
}

struct ShapeMismatch: Error, CustomStringConvertible {
    var description: String
}

/// A maxpool, upsample, route or shortcut at a yolov3 (or yolov3-tiny) shape. The cfg's last
/// layer is the one timed; `[maxpool] size=1 stride=1` layers before it are copies that stand
/// for the layers whose outputs a route or shortcut reads.
struct MemoryBoundLayer: Sendable {
    var name: String
    var cfg: String
    /// Floats the layer reads plus floats it writes, × 4.
    var bytesMoved: Int

    static func net(_ side: Int, _ channels: Int) -> String {
        "[net]\nwidth=\(side)\nheight=\(side)\nchannels=\(channels)\n\n"
    }

    static let copy = "[maxpool]\nsize=1\nstride=1\n\n"

    static let all: [MemoryBoundLayer] = [
        // yolov3-tiny layer 1: 2×2/2, 416×416×16 → 208×208×16; reads all, writes a quarter.
        .init(name: "maxpool 2x2/2 416x416x16 -> 208x208x16 (yolov3-tiny layer 1)",
              cfg: net(416, 16) + "[maxpool]\nsize=2\nstride=2\n",
              bytesMoved: 4 * (16 * 416 * 416 + 16 * 208 * 208)),
        // yolov3-tiny layer 11: 2×2/1 with darknet's padding, 13×13×512 → 13×13×512.
        .init(name: "maxpool 2x2/1 13x13x512 -> 13x13x512 (yolov3-tiny layer 11)",
              cfg: net(13, 512) + "[maxpool]\nsize=2\nstride=1\n",
              bytesMoved: 4 * 2 * (512 * 13 * 13)),
        // yolov3 layers 85 and 97: nearest-neighbour ×2.
        .init(name: "upsample 2x 13x13x256 -> 26x26x256 (yolov3 layer 85)",
              cfg: net(13, 256) + "[upsample]\nstride=2\n",
              bytesMoved: 4 * (256 * 13 * 13 + 256 * 26 * 26)),
        .init(name: "upsample 2x 26x26x128 -> 52x52x128 (yolov3 layer 97)",
              cfg: net(26, 128) + "[upsample]\nstride=2\n",
              bytesMoved: 4 * (128 * 26 * 26 + 128 * 52 * 52)),
        // yolov3 layers 86 and 98: concatenate the upsampled map (256 or 128 channels, made
        // here by a 1×1 convolution) and an earlier map (512 or 256 channels, the copy).
        .init(name: "route 26x26x(256+512) -> 26x26x768 (yolov3 layer 86)",
              cfg: net(26, 512) + copy
                  + "[convolutional]\nfilters=256\nsize=1\nstride=1\npad=1\nactivation=linear\n\n"
                  + "[route]\nlayers=-1,0\n",
              bytesMoved: 4 * 2 * (768 * 26 * 26)),
        .init(name: "route 52x52x(128+256) -> 52x52x384 (yolov3 layer 98)",
              cfg: net(52, 256) + copy
                  + "[convolutional]\nfilters=128\nsize=1\nstride=1\npad=1\nactivation=linear\n\n"
                  + "[route]\nlayers=-1,0\n",
              bytesMoved: 4 * 2 * (384 * 52 * 52)),
        // yolov3 layers 4 and 65: residual sum of two maps of the same shape, linear.
        .init(name: "shortcut 208x208x64 (yolov3 layer 4)",
              cfg: net(208, 64) + copy + copy + "[shortcut]\nfrom=-2\nactivation=linear\n",
              bytesMoved: 4 * 3 * (64 * 208 * 208)),
        .init(name: "shortcut 13x13x1024 (yolov3 layer 65)",
              cfg: net(13, 1024) + copy + copy + "[shortcut]\nfrom=-2\nactivation=linear\n",
              bytesMoved: 4 * 3 * (1024 * 13 * 13)),
    ]
}
