/// Gives each detection of a video a stable integer id across frames (object tracking by
/// greedy IoU matching with a constant-velocity guess, as DarkHelp's position tracker and
/// SORT-style trackers do, without appearance features).
///
/// The tracker follows objects. Each has an id (1, 2, 3, … in order of first sight, never
/// reused), a class, the box it was last seen with and a velocity: the change of its box
/// centre per frame between its last two sightings (zero after the first). Each `update`:
/// 1. predicts every object's box in this frame: its last box moved by velocity × frames since
///    it was last seen (size unchanged), so boxes that cross keep their identities;
/// 2. lists the (object, detection) pairs of the same class (of any classes with
///    `classAgnostic`) whose IoU of predicted and detected box is `> iouThreshold`;
/// 3. takes the pairs greedily by decreasing IoU (ties: the older object, then the earlier
///    detection), each object and each detection at most once; a taken detection gets the
///    object's id and becomes its last box (and, with `classAgnostic`, its class);
/// 4. gives every detection left a new object with the next id;
/// 5. keeps an object that was not matched, unseen, for up to `maxMissedFrames` frames (so a
///    detection missed in a few frames keeps its id), then forgets it.
///
/// Ids are returned in the input order of the detections. A class change is a new object,
/// unless `classAgnostic`: then a car seen as a truck in one frame keeps its id (darknet's
/// per-class NMS may keep both classes on one box: with `--nms-mode agnostic` only one stays,
/// and the box gets one id).
public struct ObjectTracker: Sendable {
    /// IoU above which a detection may continue an object.
    public let iouThreshold: Float
    /// Frames in a row an object may go unseen before it is forgotten.
    public let maxMissedFrames: Int
    /// Match detections to objects whatever their classes.
    public let classAgnostic: Bool
    private var objects: [Object] = []
    private var nextId = 1

    private struct Object: Sendable {
        var id: Int
        var classId: Int
        var box: BoundingBox
        var dx: Float = 0
        var dy: Float = 0
        /// Frames since it was last seen.
        var missed = 0

        var predicted: BoundingBox {
            let steps = Float(missed + 1)
            return BoundingBox(x: box.x + dx * steps, y: box.y + dy * steps, width: box.width, height: box.height)
        }

        mutating func follow(_ next: BoundingBox) {
            let steps = Float(missed + 1)
            dx = (next.x - box.x) / steps
            dy = (next.y - box.y) / steps
            box = next
            missed = 0
        }
    }

    /// `maxMissedFrames` below 0 is treated as 0 (an object must be seen in every frame).
    public init(iouThreshold: Float = 0.3, maxMissedFrames: Int = 5, classAgnostic: Bool = false) {
        self.iouThreshold = iouThreshold
        self.maxMissedFrames = max(0, maxMissedFrames)
        self.classAgnostic = classAgnostic
    }

    /// Objects currently followed, seen in the last frame or not.
    public var trackedObjects: Int { objects.count }

    /// Forgets every object (e.g. on a scene cut); ids go on from where they were.
    public mutating func reset() { objects = [] }

    /// Adds one frame's detections and returns their ids (see the type's description).
    public mutating func update(_ detections: [Detection]) -> [Int] {
        var pairs: [(iou: Float, object: Int, detection: Int)] = []
        for (o, object) in objects.enumerated() {
            let predicted = object.predicted
            for (d, detection) in detections.enumerated() where classAgnostic || detection.classId == object.classId {
                let iou = predicted.iou(detection.box)
                if iou > iouThreshold { pairs.append((iou, o, d)) }
            }
        }
        // `objects` stays in id order, so a lower index is the older object.
        pairs.sort { a, b in
            if a.iou != b.iou { return a.iou > b.iou }
            return a.object != b.object ? a.object < b.object : a.detection < b.detection
        }
        var ids = [Int?](repeating: nil, count: detections.count)
        var matched = [Bool](repeating: false, count: objects.count)
        for pair in pairs where !matched[pair.object] && ids[pair.detection] == nil {
            matched[pair.object] = true
            ids[pair.detection] = objects[pair.object].id
            objects[pair.object].follow(detections[pair.detection].box)
            objects[pair.object].classId = detections[pair.detection].classId
        }
        for o in objects.indices where !matched[o] { objects[o].missed += 1 }
        objects.removeAll { $0.missed > maxMissedFrames }
        for d in detections.indices where ids[d] == nil {
            ids[d] = nextId
            objects.append(Object(id: nextId, classId: detections[d].classId, box: detections[d].box))
            nextId += 1
        }
        return ids.map { $0! }
    }
}
