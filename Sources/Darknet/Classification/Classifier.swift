import Foundation
import Imaging
import YOLO

/// cfg + weights → the top-K classes of an image, as `darknet classifier predict` computes
/// them (`predict_classifier`): the image fitted to `[net]`'s size as the cfg's own darknet
/// does (`fitting`: pjreddie's letterboxes, checked against Debian's `darknet classifier
/// predict`; AlexeyAB's scales the shorter side to the width and crops the centre), one forward
/// pass (`network_predict`: the last layer's `C·H·W` outputs, `[cost]` passing its input
/// through), then darknet's `top_k` (highest first; equal scores keep the lower index). With a
/// class tree (`ModelDescription.hierarchy`, darknet9000), the scores first become path
/// probabilities (`hierarchy_predictions`): leaves only for a pjreddie cfg, every class for an
/// AlexeyAB one (his `predict_classifier` passes `only_leaves = 0`).
///
/// Thread-safe like ``Detector``: weights are shared, each concurrent call borrows a
/// ``Network`` from a small pool.
public final class Classifier: @unchecked Sendable {
    /// One class of the result: its index in the network output, its label, its score.
    public struct Score: Sendable, Hashable, Codable {
        public var index: Int
        public var label: String
        public var confidence: Float

        /// The identifier + confidence pair of the shared `YOLO` module.
        public var classification: Classification { Classification(identifier: label, confidence: confidence) }
    }

    /// The model and its parameters, shared (read-only) by every pooled network.
    public let prepared: PreparedModel
    /// One label per output; class numbers ("0", "1"…) when none were given.
    public let labels: [String]
    /// The networks lent to calls: at most `maximumIdleNetworks` kept between calls (`NetworkPool`).
    let pool: NetworkPool
    public static let maximumIdleNetworks = 2

    /// Errors specific to classification.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The labels file has a different count than the network's outputs.
        case labelCount(labels: Int, outputs: Int)

        public var description: String {
            switch self {
            case .labelCount(let labels, let outputs):
                return "the labels list has \(labels) names but the network has \(outputs) outputs"
            }
        }
    }

    /// The parsed cfg with every layer's shapes.
    public var model: ModelDescription { prepared.model }

    /// A classifier on a prepared model.
    public init(_ prepared: PreparedModel, labels: [String]? = nil) throws {
        let outputs = prepared.model.layers.last?.output.count ?? 0
        if let labels, labels.count != outputs { throw Error.labelCount(labels: labels.count, outputs: outputs) }
        self.prepared = prepared
        self.labels = labels ?? (0..<outputs).map(String.init)
        self.pool = NetworkPool(prepared, capacity: Self.maximumIdleNetworks, first: try Network(prepared))
    }

    /// Prepares `weights` (consumed) under `options`.
    public convenience init(model: ModelDescription, weights: consuming ModelWeights, labels: [String]? = nil,
                            options: ExecutionOptions = .init()) throws {
        try self.init(PreparedModel(model: model, weights: weights, options: options), labels: labels)
    }

    /// Loads a cfg, its weights and optionally a labels file (one name per line);
    /// `width`/`height` override `[net]`'s input size. Files given the wrong way round are a
    /// `ModelFileError` (`ModelFileKind.check`).
    public convenience init(cfg: String, weights: String, labels: String? = nil, width: Int? = nil, height: Int? = nil,
                            options: ExecutionOptions = .init(), limits: ModelLimits = .init()) throws {
        try ModelFileKind.check(cfg: cfg, weights: weights)
        let model = try ModelDescription(contentsOf: cfg, width: width ?? height, height: height ?? width, limits: limits)
        let names = try labels.map { try ClassNames.load(contentsOf: $0, maximumBytes: limits.maximumNamesBytes) }
        try self.init(PreparedModel(model: model, weightsFile: weights, options: options), labels: names)
    }

    /// Outputs of the network's last layer (`classCount` values).
    public var classCount: Int { labels.count }

    /// How `prepare` fits an image, by the cfg's dialect (`ModelDescription.dialect`), and why.
    public var fitting: String {
        switch model.dialect.dialect {
        case .pjreddie: "letterbox (a pjreddie cfg: darknet classifier predict letterboxes)"
        case .alexeyAB: "shorter side to the width, centre crop (an AlexeyAB cfg: his classifier predict resize_min + crop_image)"
        }
    }

    /// The network input for `image`, CHW in [0, 1], of `[net]`'s size: letterboxed for a cfg
    /// in pjreddie's dialect, the shorter side scaled to the width and the centre cropped for one
    /// in AlexeyAB's (`Image.shorterSideResizedAndCentreCropped`). Another channel count than
    /// `[net] channels` is converted as ``Detector/prepare(_:)`` converts it.
    public func prepare(_ image: Image) -> Image {
        let net = model.net
        let converted = image.converted(toChannels: net.channels)
        switch model.dialect.dialect {
        case .pjreddie: return converted.letterboxed(width: net.width, height: net.height)
        case .alexeyAB: return converted.shorterSideResizedAndCentreCropped(side: net.width, width: net.width, height: net.height)
        }
    }

    /// Every class score for `image` (the last layer's output, `classCount` values).
    public func scores(for image: Image) throws -> [Float] {
        let input = prepare(image)
        return try scores(forInput: input.data)
    }

    /// Scores for an already prepared `C×H×W` input of `[net]`'s size.
    public func scores(forInput input: [Float]) throws -> [Float] {
        let outputs = try withNetwork { try $0.forward(input) }
        var scores = outputs.last?.values ?? []
        if let tree = model.hierarchy, scores.count >= tree.count {
            tree.hierarchyPredictions(&scores, onlyLeaves: model.dialect.dialect == .pjreddie)
        }
        return scores
    }

    /// The `k` best classes of `image`, highest first (darknet's `top_k`).
    public func classify(_ image: Image, top k: Int = 5) throws -> [Score] {
        Self.top(k, of: try scores(for: image), labels: labels)
    }

    /// darknet's `top_k`: the `k` highest scores, highest first; equal scores keep the lower
    /// index first; NaN scores are left out; `k` ≤ 0 gives none.
    public static func top(_ k: Int, of scores: [Float], labels: [String]) -> [Score] {
        guard k > 0 else { return [] }
        let order = scores.indices.filter { !scores[$0].isNaN }.sorted {
            scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1)
        }
        return order.prefix(k).map {
            Score(index: $0, label: $0 < labels.count ? labels[$0] : String($0), confidence: scores[$0])
        }
    }

    private func withNetwork<T>(_ body: (Network) throws -> T) throws -> T {
        try pool.with(batch: 1, body)
    }

    /// Releases the activation buffers kept between calls (calls running keep theirs).
    public func trim() { pool.trim() }
}
