/// darknet's `detection`: one decoded box with its objectness and per-class probabilities.
public struct Candidate: Sendable, Hashable {
    /// Centre and size, normalised to the network input until `correctBoxes` maps it to the image.
    public var box: BoundingBox
    /// The objectness score (after logistic).
    public var objectness: Float
    /// `classes` entries: objectness × class score, or zero where that is not above the threshold.
    public var probabilities: [Float]
    /// The box's standard deviations, from a `[Gaussian_yolo]` head (nil for the others).
    public var uncertainty: BoxUncertainty?

    public init(box: BoundingBox, objectness: Float, probabilities: [Float]) {
        self.box = box
        self.objectness = objectness
        self.probabilities = probabilities
    }
}
