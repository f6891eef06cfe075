/// One class of a classifier's output.
public struct Classification: Sendable, Hashable, Codable {
    public var identifier: String
    public var confidence: Float

    public init(identifier: String, confidence: Float) {
        self.identifier = identifier
        self.confidence = confidence
    }

    /// The `k` highest scores with their labels, highest first; equal scores keep label
    /// order; NaN scores are left out. `k` larger than the class count returns them all.
    /// Throws `DecodeError.labelCountMismatch` when `labels` and `scores` differ in length,
    /// `.negativeCount` for a negative `k`.
    public static func topK(_ scores: [Float], labels: [String], k: Int) throws(DecodeError) -> [Classification] {
        if labels.count != scores.count { throw .labelCountMismatch(labels: labels.count, classes: scores.count) }
        if k < 0 { throw .negativeCount(k) }
        var order = scores.indices.filter { !scores[$0].isNaN }
        darknetMergeSort(&order, keys: scores)
        return order.prefix(k).map { Classification(identifier: labels[$0], confidence: scores[$0]) }
    }
}
