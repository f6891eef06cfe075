import Foundation
import Kernels

/// `[crop]` (pjreddie's crop_layer.c at inference, vgg-16.cfg and strided.cfg): input `C×H×W` →
/// `C × crop_height × crop_width`, the centred window starting at row `(H − crop_height)/2` and
/// column `(W − crop_width)/2` (integer division), each value mapped to `2·x − 1` — the layer
/// turns [0, 1] pixels into [−1, 1] — or copied as is with `noadjust=1`.
///
/// The random flip, shift and colour jitter (`flip`, `shift`, `angle`, `saturation`,
/// `exposure`) only happen while training (`forward_crop_layer` with `net.train`): ignored.
/// darknet's defaults: `crop_height` and `crop_width` 1.
public struct Crop: Sendable, Hashable {
    public var height: Int
    public var width: Int
    /// `noadjust=1`: no `2·x − 1` mapping.
    public var noAdjust: Bool

    static let keys: Set<String> = ["crop_height", "crop_width", "flip", "angle", "saturation", "exposure", "noadjust", "shift"]
    /// Keys read and honoured; the other `keys` are training-only (ignored).
    static let honouredKeys: Set<String> = ["crop_height", "crop_width", "noadjust"]
    static let rejectedKeys: [String: String] = [:]

    static func parse(_ section: CfgSection) throws -> Crop {
        let height = try section.int("crop_height", default: 1)
        let width = try section.int("crop_width", default: 1)
        for (key, value) in [("crop_height", height), ("crop_width", width)] where value < 1 {
            throw CfgError.invalidValue(section.location(key), value: String(value), expected: "an integer ≥ 1")
        }
        return Crop(height: height, width: width, noAdjust: try section.int("noadjust", default: 0) != 0)
    }

    /// Pure shape inference; nil when the window is larger than the input (darknet would read
    /// outside it).
    public func outputShape(input: TensorShape) -> TensorShape? {
        guard height <= input.height, width <= input.width else { return nil }
        return TensorShape(channels: input.channels, height: height, width: width)
    }

    /// `inputShape` may count the planes of a whole channel-major batch: each plane is cropped.
    func forward(input: UnsafePointer<Float>, inputShape: TensorShape, output: UnsafeMutablePointer<Float>) {
        let (top, left) = ((inputShape.height - height) / 2, (inputShape.width - width) / 2)
        let (scale, shift): (Float, Float) = noAdjust ? (1, 0) : (2, -1)
        let plane = inputShape.height * inputShape.width
        for c in 0..<inputShape.channels {
            for i in 0..<height {
                let source = input + c * plane + (i + top) * inputShape.width + left
                let target = output + (c * height + i) * width
                for j in 0..<width { target[j] = source[j] * scale + shift }
            }
        }
    }
}

extension Crop: LayerType {
    static let sectionNames = ["crop"]

    static func limitedKeys(_ limits: ModelLimits) -> [(key: String, limit: Int)] {
        [("crop_height", limits.maximumInputSide), ("crop_width", limits.maximumInputSide)]
    }

    static func layer(_ section: CfgSection, in context: LayerContext) throws -> ParsedLayer {
        let crop = try parse(section)
        guard let output = crop.outputShape(input: context.input) else {
            throw CfgError.inputTooSmall(context.location, layer: context.index,
                                         detail: "\(context.input) is smaller than the \(crop.height)×\(crop.width) crop")
        }
        return ParsedLayer(kind: .crop(crop), input: context.input, output: output)
    }

    func forward(_ run: LayerRun, timer: inout PhaseTimer?) {
        forward(input: run.input, inputShape: run.planes(run.layer.input), output: run.output)
    }

    /// `make_crop_layer`'s line: input height × width, output height × width × channels.
    func tableRow(_ layer: Layer, dialect: CfgDialect) -> String {
        let (i, o) = (layer.input, layer.output)
        return String(format: "Crop Layer: %d x %d -> %d x %d x %d image", i.height, i.width, o.height, o.width, o.channels)
    }

    /// `8x8` (crop height × width), then ` noadjust`.
    func optionsSummary(_ layer: Layer) -> String { "\(height)x\(width)" + (noAdjust ? " noadjust" : "") }
}
