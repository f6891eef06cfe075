/// Steadies boxes across video frames: each object's box is the mean of its boxes over the
/// last `window` frames.
///
/// Each `update` matches the frame's detections to the objects of the previous frame,
/// greedily by confidence (highest first; ties in input order): a detection continues the
/// unmatched object of the SAME class whose last raw box has the highest IoU with it, if
/// that IoU is `> iouThreshold`; otherwise it starts a new object. Objects not seen in a frame
/// are forgotten, so a class change starts a new history. The returned detections are the
/// input ones, in input order, with each box replaced by the mean (centre and size,
/// component-wise) of its object's last `window` raw boxes; confidence and class unchanged.
public struct BoxSmoother: Sendable {
    /// Frames averaged, at least 1 (1 = no smoothing).
    public let window: Int
    public let iouThreshold: Float
    private var tracks: [Track] = []

    private struct Track: Sendable {
        var classId: Int
        var boxes: [BoundingBox]
    }

    /// `window` below 1 is treated as 1.
    public init(window: Int, iouThreshold: Float = 0.3) {
        self.window = max(1, window)
        self.iouThreshold = iouThreshold
    }

    /// Objects currently followed.
    public var trackedObjects: Int { tracks.count }

    /// Forgets every object (e.g. on a scene cut or a new video).
    public mutating func reset() { tracks = [] }

    /// Adds one frame's detections and returns them smoothed (see the type's description).
    public mutating func update(_ detections: [Detection]) -> [Detection] {
        var order = Array(detections.indices)
        darknetMergeSort(&order, keys: detections.map(\.confidence))
        var taken = [Bool](repeating: false, count: tracks.count)
        var next = [Track?](repeating: nil, count: detections.count)
        for index in order {
            let detection = detections[index]
            var best: Int?
            var bestIoU = iouThreshold
            for (t, track) in tracks.enumerated() where !taken[t] && track.classId == detection.classId {
                if let last = track.boxes.last, last.iou(detection.box) > bestIoU {
                    bestIoU = last.iou(detection.box)
                    best = t
                }
            }
            var track = Track(classId: detection.classId, boxes: [])
            if let best {
                taken[best] = true
                track = tracks[best]
            }
            track.boxes.append(detection.box)
            if track.boxes.count > window { track.boxes.removeFirst(track.boxes.count - window) }
            next[index] = track
        }
        tracks = next.compactMap { $0 }
        return detections.indices.map { index in
            var smoothed = detections[index]
            if let boxes = next[index]?.boxes { smoothed.box = Self.mean(boxes) }
            return smoothed
        }
    }

    private static func mean(_ boxes: [BoundingBox]) -> BoundingBox {
        var x = 0.0, y = 0.0, w = 0.0, h = 0.0
        for box in boxes {
            x += Double(box.x); y += Double(box.y); w += Double(box.width); h += Double(box.height)
        }
        let n = Double(boxes.count)
        return BoundingBox(x: Float(x / n), y: Float(y / n), width: Float(w / n), height: Float(h / n))
    }
}

/// Frame rate and latency over the last `window` frames, from timestamps you pass in
/// (seconds, any monotonic clock; nothing here reads a clock).
public struct FrameRateMeter: Sendable {
    /// Frames kept, at least 2 (a rate needs two frames).
    public let window: Int
    private var frames: [(start: Double, end: Double)] = []

    /// `window` below 2 is treated as 2.
    public init(window: Int = 30) {
        self.window = max(2, window)
    }

    /// Records one frame that started processing at `start` and finished at `end`.
    public mutating func record(start: Double, end: Double) {
        frames.append((start, end))
        if frames.count > window { frames.removeFirst(frames.count - window) }
    }

    public mutating func reset() { frames = [] }

    /// Frames currently in the window.
    public var count: Int { frames.count }

    /// Mean of `end − start` over the window; nil when empty.
    public var meanLatency: Double? {
        if frames.isEmpty { return nil }
        return frames.reduce(0) { $0 + ($1.end - $1.start) } / Double(frames.count)
    }

    /// Median of `end − start` over the window (mean of the middle two for an even count); nil when empty.
    public var medianLatency: Double? {
        if frames.isEmpty { return nil }
        let sorted = frames.map { $0.end - $0.start }.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Frames finished per second: (frames − 1) / (last end − first end) over the window; nil
    /// with fewer than 2 frames or when the ends do not increase.
    public var framesPerSecond: Double? {
        guard frames.count >= 2, let first = frames.first, let last = frames.last else { return nil }
        let span = last.end - first.end
        return span > 0 ? Double(frames.count - 1) / span : nil
    }
}
