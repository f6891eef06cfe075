import Foundation
import TestSupport
import XCTest

/// `stream --track` (issue #31): each detection gets an `id` that follows its object.
final class StreamTrackTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// A 704×576 window panning 8 pixels a frame over dog.jpg (768×576): every object moves
    /// left by 8 pixels a frame. The dog, found in every frame, keeps one id throughout; every
    /// id keeps its class; ids are distinct within a frame and far fewer than the detections;
    /// the labels of the annotated frames show them.
    func testIdsFollowObjectsAcrossFrames() throws {
        let frames = try StreamFrames.dog(count: 8, width: 704, height: 576, step: 8)
        let folder = try CLI.temporaryFolder(self)
        let stream = folder.appendingPathComponent("pan.mjpeg")
        try Data(frames.joined()).write(to: stream)
        let tracked = folder.appendingPathComponent("tracked"), plain = folder.appendingPathComponent("plain")
        let result = try CLI.run(["stream"] + tinyArguments() + ["--track", "--annotate-to", tracked.path, "--quiet"], stdin: stream)
        XCTAssertEqual(result.status, 0, result.stderr)
        var classOf: [Int: String] = [:], dogIds: [Int] = [], detectionCount = 0
        for line in result.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(StreamFrames.object(line))
            let frame = try XCTUnwrap(object["frame"] as? Int)
            let detections = try XCTUnwrap(object["detections"] as? [[String: Any]])
            let ids = try detections.map { try XCTUnwrap($0["id"] as? Int, "\($0)") }
            XCTAssertEqual(Set(ids).count, ids.count, "frame \(frame): ids are distinct")
            for (id, detection) in zip(ids, detections) {
                let name = try XCTUnwrap(detection["name"] as? String)
                XCTAssertEqual(classOf[id, default: name], name, "frame \(frame): id \(id) changed class")
                classOf[id] = name
                if name == "dog" { dogIds.append(id) }
            }
            detectionCount += detections.count
        }
        XCTAssertEqual(dogIds.count, 8, "the dog is found in every frame")
        XCTAssertEqual(Set(dogIds).count, 1, "and keeps its id: \(dogIds)")
        XCTAssertLessThan(classOf.count * 2, detectionCount, "\(classOf.count) ids for \(detectionCount) detections")
        // Without --track: no ids, and the annotated frames differ only by the "#id" labels.
        let untracked = try CLI.run(["stream"] + tinyArguments() + ["--annotate-to", plain.path, "--quiet"], stdin: stream)
        XCTAssertFalse(untracked.stdout.contains("\"id\""))
        let name = "frame-000000.jpg"
        XCTAssertNotEqual(try Data(contentsOf: tracked.appendingPathComponent(name)), try Data(contentsOf: plain.appendingPathComponent(name)))
    }
}
