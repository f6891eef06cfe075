/// Decodes the two outputs of a Turi Create / Core ML object detector exported without
/// (or before) its NMS stage:
/// - `confidence`: N × C, row-major, class probabilities of each of N boxes;
/// - `coordinates`: N × 4, row-major, `[x_center, y_center, width, height]` normalised to the
///   model input, origin top-left (the same convention as `BoundingBox`).
public enum CoreMLDecoder {
    /// argmax class per box, kept if its confidence is `> confidenceThreshold`, then greedy
    /// NMS across classes at `iouThreshold` (`NMS.greedy`), at most `maxDetections` (highest
    /// confidence first; nil = all). With `normalizedConfidence`, each row of confidences is
    /// first replaced by its softmax across classes (the row then sums to 1).
    /// Throws `DecodeError.coreMLShapeMismatch` when the sizes do not fit `boxes × classes`
    /// and `boxes × 4`, `.negativeCount` for a negative `maxDetections`.
    public static func decode<Element: TensorElement>(
        confidence: UnsafeBufferPointer<Element>, coordinates: UnsafeBufferPointer<Element>,
        boxes: Int, classes: Int, confidenceThreshold: Float, iouThreshold: Float,
        maxDetections: Int? = nil, normalizedConfidence: Bool = false
    ) throws(DecodeError) -> [Detection] {
        let confidenceCount = boxes.multipliedReportingOverflow(by: classes)
        let coordinateCount = boxes.multipliedReportingOverflow(by: 4)
        if boxes < 0 || classes < 1 || confidenceCount.overflow || coordinateCount.overflow
            || confidence.count != confidenceCount.partialValue || coordinates.count != coordinateCount.partialValue {
            throw .coreMLShapeMismatch(confidenceCount: confidence.count, coordinatesCount: coordinates.count,
                                       boxes: boxes, classes: classes)
        }
        if let maxDetections, maxDetections < 0 { throw .negativeCount(maxDetections) }
        var pool: [Detection] = []
        var row = [Float](repeating: 0, count: classes)
        for i in 0..<boxes {
            for j in 0..<classes { row[j] = confidence[i * classes + j].floatValue }
            if normalizedConfidence { row = softmax(row) }
            guard let best = NMS.argmax(row), row[best] > confidenceThreshold else { continue }
            let box = BoundingBox(x: coordinates[4 * i].floatValue, y: coordinates[4 * i + 1].floatValue,
                                  width: coordinates[4 * i + 2].floatValue, height: coordinates[4 * i + 3].floatValue)
            pool.append(Detection(classId: best, confidence: row[best], box: box))
        }
        return NMS.limit(NMS.greedy(pool, iouThreshold: iouThreshold), maxDetections: maxDetections)
    }

    /// `decode` on arrays.
    public static func decode<Element: TensorElement>(
        confidence: [Element], coordinates: [Element], boxes: Int, classes: Int,
        confidenceThreshold: Float, iouThreshold: Float, maxDetections: Int? = nil, normalizedConfidence: Bool = false
    ) throws(DecodeError) -> [Detection] {
        let result: Result<[Detection], DecodeError> = confidence.withUnsafeBufferPointer { c in
            coordinates.withUnsafeBufferPointer { b in
                Result { () throws(DecodeError) -> [Detection] in
                    try decode(confidence: c, coordinates: b, boxes: boxes, classes: classes,
                               confidenceThreshold: confidenceThreshold, iouThreshold: iouThreshold,
                               maxDetections: maxDetections, normalizedConfidence: normalizedConfidence)
                }
            }
        }
        return try result.get()
    }

    /// `decode` with the IoU threshold from the model's metadata and its labels checked
    /// against the class count; the confidence threshold is the metadata's when it has one,
    /// else `defaultConfidenceThreshold`.
    public static func decode<Element: TensorElement>(
        confidence: [Element], coordinates: [Element], boxes: Int, metadata: CoreMLMetadata,
        defaultConfidenceThreshold: Float = 0.25, maxDetections: Int? = nil
    ) throws(DecodeError) -> [Detection] {
        let classes = metadata.classLabels.count
        // A whole number of columns that is not the label count: the labels are wrong.
        if boxes > 0 && confidence.count % boxes == 0 && confidence.count / boxes != classes {
            throw .labelCountMismatch(labels: classes, classes: confidence.count / boxes)
        }
        return try decode(confidence: confidence, coordinates: coordinates, boxes: boxes, classes: classes,
                          confidenceThreshold: metadata.confidenceThreshold ?? defaultConfidenceThreshold,
                          iouThreshold: metadata.iouThreshold, maxDetections: maxDetections)
    }
}

/// Softmax across `values`: `exp(v − max) / Σ exp(v − max)` (max subtracted, so no overflow),
/// in double, rounded to Float. Empty in, empty out; NaN anywhere gives NaN everywhere.
public func softmax(_ values: [Float]) -> [Float] {
    guard let largest = values.max() else { return [] }
    let exps = values.map { doubleExp(Double($0) - Double(largest)) }
    let sum = exps.reduce(0, +)
    return exps.map { Float($0 / sum) }
}
