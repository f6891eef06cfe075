import Foundation
import Kernels

/// What `--precision int8` runs on: for one cfg and weights file (their SHA-256, so that a
/// calibration is never applied to another model), each convolution's input range as the
/// calibration images gave it, the int8 scale and zero point chosen from it, how much the
/// layer's output moved in int8 on those images, and whether it runs int8 or stays f32 (with
/// why). Made by `Calibrator` (`darknet-swift calibrate`), stored as JSON (`jsonData`), read
/// back by `init(contentsOf:)`; the same inputs give the same bytes.
///
/// Per layer, the input `x` of an int8 convolution is quantized as `q = clamp(round(x / scale)
/// + zeroPoint, 0, 255)`, so `[low, high]` (`low ≤ 0 ≤ high`) maps onto the 256 levels:
/// `scale = (high − low) / 255`, `zeroPoint = round(−low / scale)`. On a CPU without VNNI the
/// engine quantizes to 128 levels instead (`OneDNN`): `scale · 255/127` and the zero point
/// scaled alike (`quantization(ofLayer:levels:)`). A layer's `precision` may be edited by hand:
/// the engine runs int8 exactly the layers marked `int8`.
public struct Calibration: Sendable, Hashable, Codable {
    /// The `format` string every calibration file starts with, and the version this build reads.
    public static let formatName = "darknet-swift calibration"
    public static let currentVersion = 1

    public var format: String
    public var version: Int
    public var cfg: FileChecksum
    public var weights: FileChecksum
    /// The network input the images were run at (`--size`, or the cfg's `[net]`).
    public var input: InputSize
    /// How each range was chosen from the layer's histogram (`RangeMethod`), with its parameter.
    public var method: RangeMethod
    public var percentile: Double?
    /// Calibration images run.
    public var images: Int
    /// Relative error (`Layer.error`) above which a layer stays f32.
    public var errorBound: Float
    /// Every convolution, in layer order.
    public var layers: [Layer]
    /// The file it was read from, for messages (not stored in it).
    public var source: String?

    enum CodingKeys: String, CodingKey {
        case format, version, cfg, weights, input, method, percentile, images, errorBound, layers
    }

    public struct FileChecksum: Sendable, Hashable, Codable {
        /// The file's name as given (for messages; only the checksum is compared).
        public var file: String
        /// Its SHA-256, lowercase hex, as `sha256sum` prints it.
        public var sha256: String

        public init(file: String, sha256: String) { (self.file, self.sha256) = (file, sha256) }
    }

    public struct InputSize: Sendable, Hashable, Codable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
    }

    /// How a range is chosen from the values a layer saw (`RangeChoice`).
    public enum RangeMethod: String, Sendable, Hashable, Codable, CaseIterable {
        /// `[low, high]` cuts off the `(100 − percentile)`% smallest and largest values.
        case percentile
        /// `high` minimises the Kullback-Leibler divergence between the values' histogram and
        /// its quantized copy (TensorRT's entropy calibration); `low` as `percentile`'s.
        case entropy
    }

    public enum LayerPrecision: String, Sendable, Hashable, Codable {
        case int8, f32
    }

    /// One convolution's calibration.
    public struct Layer: Sendable, Hashable, Codable {
        public var layer: Int
        public var precision: LayerPrecision
        /// Why the layer stays f32 (nil when it runs int8).
        public var reason: String?
        /// Quantization of its input to 256 levels.
        public var scale: Float
        public var zeroPoint: Int
        /// The range the scale maps (`low ≤ 0 ≤ high`).
        public var low: Float
        public var high: Float
        /// The smallest and largest input value seen.
        public var min: Float
        public var max: Float
        /// `‖y₈ − y‖ / ‖y‖` over the calibration images: the layer's output in int8 against
        /// f32, each from the f32 network's input to the layer (nil: not measured).
        public var error: Float?

        public init(layer: Int, precision: LayerPrecision, reason: String?, low: Float, high: Float, min: Float, max: Float,
                    error: Float?) {
            (self.layer, self.precision, self.reason) = (layer, precision, reason)
            (self.low, self.high, self.min, self.max, self.error) = (low, high, min, max, error)
            (scale, zeroPoint) = Self.quantization(low: low, high: high, levels: 255)
        }

        /// `scale` and `zeroPoint` of `[low, high]` on `levels` levels (a range of zero width
        /// gets the scale of `[0, 1]`).
        static func quantization(low: Float, high: Float, levels: Int) -> (scale: Float, zeroPoint: Int) {
            let width = high - low
            let scale = width > 0 && width.isFinite ? width / Float(levels) : 1 / Float(levels)
            let zeroPoint = Int((-low / scale).rounded(.toNearestOrEven))
            return (scale, Swift.max(0, Swift.min(levels, zeroPoint)))
        }
    }

    public init(cfg: FileChecksum, weights: FileChecksum, input: InputSize, method: RangeMethod, percentile: Double?,
                images: Int, errorBound: Float, layers: [Layer]) {
        format = Self.formatName
        version = Self.currentVersion
        (self.cfg, self.weights, self.input, self.method, self.percentile) = (cfg, weights, input, method, percentile)
        (self.images, self.errorBound, self.layers) = (images, errorBound, layers)
    }

    /// The layers that run int8.
    public var int8Layers: Set<Int> { Set(layers.filter { $0.precision == .int8 }.map(\.layer)) }

    /// Layer `index`'s input quantization on `levels` levels (255, or 127 without VNNI: the
    /// file's scale and zero point are for 255), nil when the file has no such layer.
    func quantization(ofLayer index: Int, levels: Int32) -> ActivationQuantization? {
        guard let entry = layers.first(where: { $0.layer == index }) else { return nil }
        guard levels != 255 else {
            return ActivationQuantization(scale: entry.scale, zeroPoint: Int32(entry.zeroPoint), levels: 255)
        }
        let scale = entry.scale * 255 / Float(levels)
        let zeroPoint = Int32((Float(entry.zeroPoint) * Float(levels) / 255).rounded(.toNearestOrEven))
        return ActivationQuantization(scale: scale, zeroPoint: Swift.min(levels, Swift.max(0, zeroPoint)), levels: levels)
    }

    /// The file's bytes: JSON, keys sorted, two-space indent, a final newline. Throws on a
    /// value JSON cannot hold (NaN or infinite: `Calibrator` makes none).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }
}
