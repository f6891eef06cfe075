/// What a Turi Create / Core ML object detector says about itself in its model metadata
/// (`MLModel.modelDescription.metadata[.creatorDefinedKey]`, a `[String: String]`).
///
/// Keys read: `classes` (labels, comma-separated, in score-column order),
/// `non_maximum_suppression_threshold` (IoU threshold) and, when present,
/// `confidence_threshold`.
public struct CoreMLMetadata: Sendable, Hashable {
    public var classLabels: [String]
    public var iouThreshold: Float
    /// nil when the model does not state one.
    public var confidenceThreshold: Float?

    public init(classLabels: [String], iouThreshold: Float, confidenceThreshold: Float? = nil) {
        self.classLabels = classLabels
        self.iouThreshold = iouThreshold
        self.confidenceThreshold = confidenceThreshold
    }

    /// Parses the creator-defined metadata strings. Labels are split on `,` and trimmed of
    /// spaces; thresholds must be numbers in 0...1. Throws `MetadataError` naming the key.
    public init(userDefined metadata: [String: String]) throws(MetadataError) {
        guard let classes = metadata["classes"] else { throw .missingKey("classes") }
        let labels = classes.split(separator: ",", omittingEmptySubsequences: false).map { trimmed($0) }
        if labels.count == 1 && labels[0].isEmpty { throw .emptyClassList }
        for (index, label) in labels.enumerated() where label.isEmpty {
            throw .emptyClassLabel(index: index, value: classes)
        }
        guard let nms = metadata["non_maximum_suppression_threshold"] else {
            throw .missingKey("non_maximum_suppression_threshold")
        }
        self.classLabels = labels
        self.iouThreshold = try Self.threshold(nms, key: "non_maximum_suppression_threshold")
        if let confidence = metadata["confidence_threshold"] {
            self.confidenceThreshold = try Self.threshold(confidence, key: "confidence_threshold")
        } else {
            self.confidenceThreshold = nil
        }
    }

    private static func threshold(_ text: String, key: String) throws(MetadataError) -> Float {
        guard let value = Float(trimmed(Substring(text))), value.isFinite else {
            throw .notANumber(key: key, value: text)
        }
        if value < 0 || value > 1 { throw .outOfRange(key: key, value: value) }
        return value
    }
}

/// `text` without leading and trailing spaces, tabs and newlines.
private func trimmed(_ text: Substring) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !blank($0) }),
          let last = text.lastIndex(where: { !blank($0) }) else { return "" }
    return String(text[first...last])
}

/// Why Core ML model metadata was rejected.
public enum MetadataError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A required key is absent.
    case missingKey(String)
    /// `classes` is empty.
    case emptyClassList
    /// Label `index` of `classes` is empty (e.g. `"cat,,dog"` or a trailing comma).
    case emptyClassLabel(index: Int, value: String)
    /// The value of `key` does not parse as a finite number.
    case notANumber(key: String, value: String)
    /// The value of `key` is outside 0...1.
    case outOfRange(key: String, value: Float)

    public var description: String {
        switch self {
        case let .missingKey(key):
            return "model metadata has no \"\(key)\"; expected it among the creator-defined keys"
        case .emptyClassList:
            return "model metadata \"classes\" is empty; expected comma-separated class labels"
        case let .emptyClassLabel(index, value):
            return "model metadata \"classes\" = \"\(value)\" has an empty label at position \(index); expected a label between every pair of commas"
        case let .notANumber(key, value):
            return "model metadata \"\(key)\" = \"\(value)\"; expected a number"
        case let .outOfRange(key, value):
            return "model metadata \"\(key)\" = \(value); expected a value in 0...1"
        }
    }
}
