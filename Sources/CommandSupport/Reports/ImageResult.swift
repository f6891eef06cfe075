import YOLO

/// What `detect` learnt about one image, handed to the output format.
package struct ImageResult: Sendable {
    package var path: String
    package var width: Int
    package var height: Int
    package var detections: [Detection]
    /// Seconds spent decoding the file and running the network (letterbox, forward, decode, NMS).
    package var decodeSeconds: Double
    package var inferenceSeconds: Double

    package init(path: String, width: Int, height: Int, detections: [Detection], decodeSeconds: Double, inferenceSeconds: Double) {
        self.path = path
        self.width = width
        self.height = height
        self.detections = detections
        self.decodeSeconds = decodeSeconds
        self.inferenceSeconds = inferenceSeconds
    }
}
