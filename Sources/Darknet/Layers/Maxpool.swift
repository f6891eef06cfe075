import Foundation
import Kernels

/// `[maxpool]`: input `C×H×W` → `C × outH × outW` with darknet's padding semantics:
/// `padding` defaults to `size − 1`, `outH = (H + padding − size) / stride + 1`, and the
/// window starts at `−padding/2` (so `size=2 stride=1` keeps 13×13 in yolov3-tiny; the
/// extra row/column on the bottom-right counts as −∞, never as 0).
///
/// AlexeyAB's `stride_x`/`stride_y` (default `stride`) step the window separately along x and y:
/// `outW = (W + padding − size) / stride_x + 1`, `outH = (H + padding − size) / stride_y + 1`.
///
/// AlexeyAB's `maxpool_depth=1` pools across channels instead: input `C×H×W` → `out_channels × H × W`
/// (default 1), output channel `g` the max over input channels `g, g + out_channels, g + 2·out_channels, …`
/// at each pixel (forward_maxpool_layer's depth branch; size and stride are ignored).
public struct Maxpool: Sendable, Hashable {
    public var size: Int
    /// Horizontal stride (`stride_x`, default `stride`).
    public var stride: Int
    public var padding: Int
    /// Vertical stride (`stride_y`, default `stride`).
    public var strideY: Int
    /// `out_channels` with `maxpool_depth=1`; nil for a spatial maxpool.
    public var depthChannels: Int?

    public init(size: Int, stride: Int, padding: Int, strideY: Int? = nil, depthChannels: Int? = nil) {
        self.size = size
        self.stride = stride
        self.padding = padding
        self.strideY = strideY ?? stride
        self.depthChannels = depthChannels
    }

    static let keys: Set<String> = ["size", "stride", "padding", "stride_x", "stride_y", "maxpool_depth", "out_channels", "antialiasing"]
    /// Keys read and honoured; the other `keys` are training-only (ignored) or `rejectedKeys`.
    static let honouredKeys: Set<String> = ["size", "stride", "padding", "stride_x", "stride_y", "maxpool_depth", "out_channels"]
    /// Keys that are a typed error (naming key and line) unless darknet's default, with a value that triggers it.
    static let rejectedKeys: [String: String] = ["antialiasing": "1"]

    static func parse(_ section: CfgSection, limits: ModelLimits = .init()) throws -> Maxpool {
        let stride = try section.int("stride", default: 1)
        let size = try section.int("size", default: stride)
        let padding = try section.int("padding", default: size - 1)
        for (key, value) in [("size", size), ("stride", stride)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        if padding < 0 {
            throw CfgError.invalidValue(section.location("padding"), value: String(padding), expected: "padding ≥ 0")
        }
        let strideX = try section.int("stride_x", default: stride)
        let strideY = try section.int("stride_y", default: stride)
        for (key, value) in [("stride_x", strideX), ("stride_y", strideY)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        if try section.int("antialiasing", default: 0) != 0 {
            throw CfgError.unsupported(section.location("antialiasing"), what: "antialiasing in [maxpool]")
        }
        var depthChannels: Int?
        if try section.int("maxpool_depth", default: 0) != 0 {
            let outChannels = try section.int("out_channels", default: 1)
            if outChannels < 1 || outChannels > limits.maximumChannels {
                throw CfgError.invalidValue(section.location("out_channels"), value: String(outChannels),
                                            expected: "1...\(limits.maximumChannels)")
            }
            depthChannels = outChannels
        }
        return Maxpool(size: size, stride: strideX, padding: padding, strideY: strideY, depthChannels: depthChannels)
    }

    /// Pure shape inference; nil when the window does not fit, or with `maxpool_depth` when
    /// `out_channels` exceeds the input's (darknet would fill those channels with −FLT_MAX).
    public func outputShape(input: TensorShape) -> TensorShape? {
        if let depthChannels {
            guard depthChannels <= input.channels else { return nil }
            return TensorShape(channels: depthChannels, height: input.height, width: input.width)
        }
        guard input.height + padding >= size, input.width + padding >= size else { return nil }
        return TensorShape(channels: input.channels,
                           height: (input.height + padding - size) / strideY + 1,
                           width: (input.width + padding - size) / stride + 1)
    }

    /// `maxpool_depth` on one image: output channel `g` at each pixel is the max (first `>`
    /// wins, from −FLT_MAX) over input channels `g, g + outC, …`.
    func forwardDepth(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>, outChannels: Int) {
        let plane = inputShape.height * inputShape.width
        for g in 0..<outChannels {
            let out = output + g * plane
            for i in 0..<plane {
                var largest = -Float.greatestFiniteMagnitude
                for k in Swift.stride(from: g, to: inputShape.channels, by: outChannels) where input[k * plane + i] > largest {
                    largest = input[k * plane + i]
                }
                out[i] = largest
            }
        }
    }

    /// True for windows larger than 2×2 at stride 1 (the SPP pools), which `forward` runs as a
    /// row pass and a column pass (`PoolWindows.maxPool`) in `scratchCount` floats of scratch.
    var isSeparable: Bool { depthChannels == nil && size > 2 && stride == 1 && strideY == 1 }

    /// Scratch floats `forward` needs for `inputShape`'s planes on up to `threads` workers (0
    /// unless `isSeparable`).
    func scratchCount(input: TensorShape, output: TensorShape, threads: Int) -> Int {
        guard isSeparable else { return 0 }
        return min(threads, output.channels) * PoolWindows.scratchCount(height: input.height, outWidth: output.width, size: size)
    }

    /// The fast path: channels split across up to `threads` workers. Separable pools
    /// (`isSeparable`) go through `PoolWindows.maxPool` in `scratch` (`scratchCount` floats). In
    /// the others, output positions whose whole window lies in the image (the interior) take the
    /// max over `size × size` taps without bounds checks (8 at a time for 2×2 at stride 2 or 1), and only the
    /// border uses the checked loop.
    /// Same values as `forwardReference`, bit for bit (same taps, same order, same `>`).
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>, outputShape: TensorShape,
                 threads: Int, scratch: UnsafeMutablePointer<Float>? = nil) {
        let offset = -padding / 2
        let (height, width) = (inputShape.height, inputShape.width)
        let (outHeight, outWidth) = (outputShape.height, outputShape.width)
        if isSeparable {
            guard let scratch else { preconditionFailure("Maxpool.forward: a \(size)×\(size)/1 pool needs scratch") }
            let size = self.size, perWorker = PoolWindows.scratchCount(height: height, outWidth: outWidth, size: size)
            Parallel.forWorkers(of: outputShape.channels, work: outputShape.count * size * 2, threads: threads) { worker, channels in
                for c in channels {
                    PoolWindows.maxPool(input + c * height * width, height: height, width: width, size: size, offset: offset,
                                        outHeight: outHeight, outWidth: outWidth, scratch: scratch + worker * perWorker,
                                        into: output + c * outHeight * outWidth)
                }
            }
            return
        }
        // Window of output (oy, ox) covers rows offset + oy·stride ..< + size: inside the image
        // for oy in interiorY (likewise x), found from the definition so any offset works.
        let interiorY = interior(offset: offset, extent: height, outputs: outHeight, stride: strideY)
        let interiorX = interior(offset: offset, extent: width, outputs: outWidth, stride: stride)
        let (size, stride, strideY) = (self.size, self.stride, self.strideY)
        Parallel.forChunks(of: outputShape.channels, work: outputShape.count * size * size, threads: threads) { channels in
            for c in channels {
                let plane = input + c * height * width
                let out = output + c * outHeight * outWidth
                for oy in 0..<outHeight {
                    let outRow = out + oy * outWidth
                    guard interiorY.contains(oy) else {
                        for ox in 0..<outWidth { outRow[ox] = checkedMax(plane, height: height, width: width, offset: offset, oy: oy, ox: ox) }
                        continue
                    }
                    for ox in 0..<interiorX.lowerBound {
                        outRow[ox] = checkedMax(plane, height: height, width: width, offset: offset, oy: oy, ox: ox)
                    }
                    let top = plane + (offset + oy * strideY) * width + offset
                    if size == 2 && (stride == 1 || stride == 2) {
                        // yolov3-tiny's 2×2 pools, unrolled: the same four taps in the same order,
                        // 8 outputs at a time.
                        Pool2x2.poolRow(top, width: width, stride: stride, outputs: interiorX, into: outRow)
                    } else {
                        for ox in interiorX {
                            let window = top + ox * stride
                            var best = -Float.greatestFiniteMagnitude
                            for ky in 0..<size {
                                let row = window + ky * width
                                for kx in 0..<size where row[kx] > best { best = row[kx] }
                            }
                            outRow[ox] = best
                        }
                    }
                    for ox in interiorX.upperBound..<outWidth {
                        outRow[ox] = checkedMax(plane, height: height, width: width, offset: offset, oy: oy, ox: ox)
                    }
                }
            }
        }
    }

    /// True when this pool takes 2×2 windows at stride 2 from offset 0 and halves an even
    /// `input` exactly (padding 0 or 1, so no window reaches the border): then a convolution
    /// can pool its own output rows (`Pool2x2.poolRows`) and this layer has nothing left to do
    /// (`Network.fusedPools`). yolov3-tiny's five stride-2 pools halve; its 13×13 one does not.
    func halves(_ input: TensorShape) -> Bool {
        depthChannels == nil && size == 2 && stride == 2 && strideY == 2 && padding <= 1
            && input.height % 2 == 0 && input.width % 2 == 0
    }

    /// Output indices (along one axis) whose window `offset + o·stride ..< + size` lies in `0..<extent`.
    private func interior(offset: Int, extent: Int, outputs: Int, stride: Int) -> Range<Int> {
        var first = 0
        while first < outputs && offset + first * stride < 0 { first += 1 }
        var end = first
        while end < outputs && offset + end * stride + size <= extent { end += 1 }
        return first..<end
    }

    /// One output of the border: the max over the window's taps inside the image (darknet skips the others).
    @inline(__always)
    private func checkedMax(_ plane: UnsafePointer<Float>, height: Int, width: Int, offset: Int, oy: Int, ox: Int) -> Float {
        var best = -Float.greatestFiniteMagnitude
        for ky in 0..<size {
            let y = offset + oy * strideY + ky
            guard y >= 0, y < height else { continue }
            for kx in 0..<size {
                let x = offset + ox * stride + kx
                guard x >= 0, x < width else { continue }
                let value = plane[y * width + x]
                if value > best { best = value }
            }
        }
        return best
    }

    /// darknet's `forward_maxpool_layer`, every window through the bounds-checked `checkedMax`:
    /// the reference the fast `forward` (unchecked interior) is tested against.
    func forwardReference(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>, outputShape: TensorShape) {
        let offset = -padding / 2
        let (height, width) = (inputShape.height, inputShape.width)
        for c in 0..<outputShape.channels {
            let plane = input + c * height * width
            let out = output + c * outputShape.height * outputShape.width
            for oy in 0..<outputShape.height {
                for ox in 0..<outputShape.width {
                    out[oy * outputShape.width + ox] = checkedMax(plane, height: height, width: width, offset: offset, oy: oy, ox: ox)
                }
            }
        }
    }
}

extension Maxpool: LayerType {
    static let sectionNames = ["maxpool", "max"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("size", limits.maximumKernelSide), ("stride", limits.maximumKernelSide), ("padding", limits.maximumKernelSide)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let pool = try parse(section, limits: context.limits)
        guard let output = pool.outputShape(input: context.input) else {
            if let outChannels = pool.depthChannels {
                throw CfgError.shapeMismatch(section.location("out_channels"), layer: context.index,
                                             detail: "maxpool_depth with out_channels=\(outChannels) needs at least that many input channels, got \(context.input)")
            }
            throw CfgError.inputTooSmall(context.location, layer: context.index,
                                         detail: "\(context.input) with size=\(pool.size) padding=\(pool.padding)")
        }
        return ParsedLayer(kind: .maxpool(pool), input: context.input, output: output)
    }

    func workspaceCount(_ layer: Layer, _ context: PlanningContext) -> Int {
        guard depthChannels == nil else { return LayerRun.eachImageCount(layer, batch: context.batch) }
        let planes = { (shape: TensorShape) in
            TensorShape(channels: shape.channels * context.batch, height: shape.height, width: shape.width)
        }
        return scratchCount(input: planes(layer.input), output: planes(layer.output), threads: context.kernels.threads)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        if let outChannels = depthChannels {
            run.eachImage { forwardDepth(input: $0, inputShape: run.layer.input, output: $1, outChannels: outChannels) }
        } else {
            forward(input: run.input, inputShape: run.planes(run.layer.input), output: run.output,
                    outputShape: run.planes(run.layer.output), threads: run.threads, scratch: run.workspace)
        }
    }

    /// His `l.bflops`: `size² · C · outH · outW / 1e9` (`make_maxpool_layer`).
    func alexeyABBflops(_ layer: Layer) -> Float { AlexeyABTable.poolBflops(size: size, input: layer.input, output: layer.output) }

    /// `make_maxpool_layer`'s line: pjreddie's `max          %d x %d / %d  ` and the shapes
    /// (`max-depth` for AlexeyAB's `maxpool_depth`); AlexeyAB's own, with his BFLOPs, in his
    /// dialect (`AlexeyABTable.pool`).
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        if dialect == .alexeyAB {
            return AlexeyABTable.pool(depthChannels == nil ? "max" : "max-depth", size: size, strideX: stride, strideY: strideY,
                                      input: layer.input, output: layer.output)
        }
        let format = depthChannels == nil ? "max          %d x %d / %d  " : "max-depth    %d x %d / %d  "
        return String(format: format, size, size, stride) + layer.tableShapes
    }

    func optionsSummary(_ layer: Layer) -> String {
        if let depthChannels { return "depth -> \(depthChannels)" }
        return "\(size)x\(size)/\(stride)"
    }
}
