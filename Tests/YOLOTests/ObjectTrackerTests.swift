import XCTest
import YOLO

final class ObjectTrackerTests: XCTestCase {
    func box(_ x: Float, _ y: Float, size: Float = 0.2) -> BoundingBox {
        BoundingBox(x: x, y: y, width: size, height: size)
    }

    func detection(_ classId: Int, _ box: BoundingBox) -> Detection {
        Detection(classId: classId, confidence: 0.9, box: box)
    }

    /// Four objects over 13 frames: two people (class 0) walking towards each other, crossing
    /// at frame 6 (their boxes then overlap with IoU 2/3) where the left one is missed; a car
    /// (class 2) driving across both of them; a static dog (class 1) missed in frames 3 and 4.
    /// Detections come in a different order each frame. No id may switch (matching the last
    /// boxes only, the left walker's old box would take the right walker in frame 7).
    func testCrossingObjectsAndMissedFramesKeepTheirIds() {
        var tracker = ObjectTracker()
        var seen: [String: Int] = [:]
        for frame in 0..<13 {
            let t = Float(frame)
            var objects: [(String, Detection)] = [
                ("left walker", detection(0, box(0.2 + 0.05 * t, 0.48))),
                ("right walker", detection(0, box(0.8 - 0.05 * t, 0.52))),
                ("car", detection(2, box(0.5, 0.1 + 0.065 * t, size: 0.25))),
            ]
            if frame != 3 && frame != 4 { objects.append(("dog", detection(1, box(0.85, 0.85)))) }
            if frame == 6 { objects.removeAll { $0.0 == "left walker" } }  // occluded at the crossing
            if frame % 2 == 1 { objects.reverse() }
            if frame % 3 == 2 { objects.swapAt(0, objects.count - 1) }
            let ids = tracker.update(objects.map(\.1))
            XCTAssertEqual(Set(ids).count, ids.count, "frame \(frame): ids are distinct")
            for ((name, _), id) in zip(objects, ids) {
                if let first = seen[name] {
                    XCTAssertEqual(id, first, "frame \(frame): \(name) switched id")
                } else {
                    seen[name] = id
                }
            }
        }
        XCTAssertEqual(Set(seen.values), [1, 2, 3, 4], "one id per object, numbered from 1")
        XCTAssertEqual(tracker.trackedObjects, 4)
    }

    /// The rule this tracker adds to plain IoU matching: without the velocity guess, the
    /// walker at 0.48 would continue as the one now at 0.48 (IoU 1) and the ids would swap.
    func testTheVelocityGuessDecidesACrossing() {
        var tracker = ObjectTracker()
        let a = tracker.update([detection(0, box(0.44, 0.5)), detection(0, box(0.56, 0.5))])
        let b = tracker.update([detection(0, box(0.48, 0.5)), detection(0, box(0.52, 0.5))])
        let c = tracker.update([detection(0, box(0.52, 0.5)), detection(0, box(0.48, 0.5))])
        XCTAssertEqual(a, [1, 2])
        XCTAssertEqual(b, [1, 2])
        XCTAssertEqual(c, [1, 2], "each keeps moving its way")
    }

    func testClassesNewObjectsAndForgetting() {
        var tracker = ObjectTracker(iouThreshold: 0.3, maxMissedFrames: 2)
        XCTAssertEqual(tracker.update([detection(0, box(0.3, 0.3))]), [1])
        // Same place, another class: a new object; the first is unseen.
        XCTAssertEqual(tracker.update([detection(1, box(0.3, 0.3))]), [2])
        // Far away: a new object even of the same class.
        XCTAssertEqual(tracker.update([detection(1, box(0.3, 0.3)), detection(0, box(0.8, 0.8))]), [2, 3])
        // Object 1 was unseen for 2 frames: still remembered.
        XCTAssertEqual(tracker.update([detection(0, box(0.31, 0.3))]), [1])
        for _ in 0..<3 { _ = tracker.update([]) }
        // Unseen for 3 > 2 frames: forgotten, and ids are never reused.
        XCTAssertEqual(tracker.update([detection(0, box(0.31, 0.3))]), [4])
        XCTAssertEqual(tracker.trackedObjects, 1)
        tracker.reset()
        XCTAssertEqual(tracker.trackedObjects, 0)
        XCTAssertEqual(tracker.update([detection(0, box(0.31, 0.3))]), [5])
        XCTAssertEqual(ObjectTracker(maxMissedFrames: -1).maxMissedFrames, 0)
    }

    /// Greedy by IoU: the closer detection wins an object even when it comes second.
    func testHighestIoUWinsAndTiesGoToTheOlderObject() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.update([detection(0, box(0.5, 0.5))]), [1])
        XCTAssertEqual(tracker.update([detection(0, box(0.58, 0.5)), detection(0, box(0.51, 0.5))]), [2, 1])
        // Two objects equally far from one detection: the older (lower id) takes it.
        var tie = ObjectTracker()
        XCTAssertEqual(tie.update([detection(0, box(0.375, 0.5, size: 0.25)), detection(0, box(0.625, 0.5, size: 0.25))]), [1, 2])
        XCTAssertEqual(tie.update([detection(0, box(0.5, 0.5, size: 0.25))]), [1])
    }

    /// Issue #52: a car seen as a truck for a few frames of a pan. Per class the flip starts
    /// a new id (and the car's comes back when the car does); class-agnostic, the object keeps
    /// its one id through both flips and the class it reports follows the detection.
    func testAClassFlipKeepsItsIdOnlyWhenAgnostic() {
        let classes = [2, 2, 7, 7, 2, 7, 2, 2]  // car, truck
        func ids(_ tracker: inout ObjectTracker) -> [Int] {
            classes.enumerated().map { frame, classId in
                tracker.update([detection(classId, box(0.3 + 0.02 * Float(frame), 0.4))])[0]
            }
        }
        var perClass = ObjectTracker()
        XCTAssertEqual(ids(&perClass), [1, 1, 2, 2, 1, 2, 1, 1])
        var agnostic = ObjectTracker(classAgnostic: true)
        XCTAssertEqual(ids(&agnostic), Array(repeating: 1, count: classes.count))
        XCTAssertEqual(agnostic.trackedObjects, 1)
        // Two objects of different classes far apart stay two objects.
        XCTAssertEqual(agnostic.update([detection(2, box(0.46, 0.4)), detection(0, box(0.9, 0.9))]), [1, 2])
    }

    /// The memory and the IoU gate are the tracker's two settings: an object unseen for 8
    /// frames is kept with a memory of 10, not with 5; a 50% IoU gate refuses a jump that
    /// the default 30% gate follows.
    func testMemoryAndIoUGate() {
        for (memory, expected) in [(10, 1), (5, 2)] {
            var tracker = ObjectTracker(maxMissedFrames: memory)
            _ = tracker.update([detection(0, box(0.5, 0.5))])
            for _ in 0..<8 { _ = tracker.update([]) }
            XCTAssertEqual(tracker.update([detection(0, box(0.5, 0.5))]), [expected], "memory \(memory)")
        }
        // Boxes 0.2 wide moved by 0.07: IoU = 0.13 / 0.27 ≈ 0.48.
        for (gate, expected) in [(Float(0.3), 1), (0.5, 2)] {
            var tracker = ObjectTracker(iouThreshold: gate)
            _ = tracker.update([detection(0, box(0.5, 0.5))])
            XCTAssertEqual(tracker.update([detection(0, box(0.57, 0.5))]), [expected], "gate \(gate)")
        }
    }
}
