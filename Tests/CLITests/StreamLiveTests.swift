import Dispatch
import Foundation
import TestSupport
import XCTest

/// `stream` on live input (issue #31, item 1): frames written through a pipe while the binary
/// runs must each get their line as soon as they are done, `--drop` must drop only frames a
/// newer one replaced while the engine was busy, and `latency` must count from the frame's last
/// byte arriving. No test here compares a duration with a number: each checks an order of
/// events (a frame answered before the next is sent, a drop only after a newer frame came).
final class StreamLiveTests: XCTestCase {
    func tinyArguments() throws -> [String] {
        [try TestData.path("cfg/yolov3-tiny.cfg"), try TestData.path("yolov3-tiny.weights")]
    }

    /// Frames of 6-8 KB (as the report used), each written only once the line of the
    /// one before has come back. A reader that waits for a block to fill never answers.
    func testEachSmallFrameIsAnsweredBeforeTheNextIsSent() throws {
        let frames = try StreamFrames.dog(count: 6, step: 16, scale: 0.25)
        XCTAssertLessThan(frames.map(\.count).max()!, 16_384)
        let live = try LiveStream(["stream"] + tinyArguments() + ["--drop"])
        for (index, frame) in frames.enumerated() {
            try live.write(frame)
            guard live.waitForLines(index + 1) else {
                let result = try live.finish()
                return XCTFail("no line for frame \(index) while stdin stayed open; \(result.lines.count) lines after it closed")
            }
        }
        let result = try live.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        let numbers = result.lines.compactMap { StreamFrames.object($0.line)?["frame"] as? Int }
        XCTAssertEqual(numbers, Array(0..<frames.count))
        XCTAssertTrue(result.stderr.contains("6 frames read, 6 processed, 0 dropped, 0 failed"), result.stderr)
    }

    /// 30 frames at 15 fps with `--drop`, after one answered frame shows the model is loaded.
    /// The newest frame is answered while stdin is still open (a reader that waits for the
    /// end of its input never answers it; how soon it is answered depends on the machine's
    /// load, so no time is compared); a frame may be dropped only if the next frame had begun
    /// to arrive before the engine finished (wrote the line of) the frame it was busy with
    /// (the engine takes the waiting frame before it writes that line, so a frame sent after
    /// the line was seen cannot replace it, however the threads are scheduled); and a latency
    /// cannot exceed the time from the frame's first byte being sent to its line being seen.
    func testPacedFramesAreDroppedOnlyWhenANewerOneArrivedWhileTheEngineWasBusy() throws {
        let frames = try StreamFrames.dog(count: 31, step: 4)
        let live = try LiveStream(["stream"] + tinyArguments() + ["--drop"])
        var sent: [(start: UInt64, end: UInt64)] = [try live.write(frames[0])]
        XCTAssertTrue(live.waitForLines(1), "the first frame was never answered")
        let interval: UInt64 = 1_000_000_000 / 15
        let begin = DispatchTime.now().uptimeNanoseconds
        for index in 1..<frames.count {
            let due = begin + UInt64(index - 1) * interval
            let now = DispatchTime.now().uptimeNanoseconds
            if due > now { usleep(useconds_t((due - now) / 1000)) }
            sent.append(try live.write(frames[index]))
        }
        let answeredOpen = live.waitForLines(where: { StreamFrames.object($0)?["frame"] as? Int == frames.count - 1 }, timeout: 300)
        let result = try live.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(answeredOpen, "the newest frame was not answered while stdin stayed open")
        var seen: [Int: (object: [String: Any], time: UInt64)] = [:]
        for (line, time) in result.lines {
            let object = try XCTUnwrap(StreamFrames.object(line), line)
            seen[try XCTUnwrap(object["frame"] as? Int)] = (object, time)
        }
        XCTAssertNotNil(seen[frames.count - 1], "the newest frame is never dropped")
        var lastProcessed = 0
        for index in 1..<frames.count {
            if let (object, time) = seen[index] {
                XCTAssertNil(object["error"], "frame \(index): \(object)")
                let latency = try XCTUnwrap(object["latency"] as? Double)
                XCTAssertLessThanOrEqual(latency, Double(time - sent[index].start) / 1e9, "frame \(index)")
                lastProcessed = index
            } else if index + 1 < frames.count {
                // Dropped: frame index + 1 must have started before the line of the frame the
                // engine was busy with (the last one processed before it) was written.
                let busyUntil = try XCTUnwrap(seen[lastProcessed]).time
                XCTAssertLessThan(sent[index + 1].start, busyUntil,
                                  "frame \(index) was dropped although the engine had finished frame \(lastProcessed) before frame \(index + 1) was sent")
            }
        }
        let dropped = frames.count - seen.count
        XCTAssertTrue(result.stderr.contains("\(frames.count) frames read, \(seen.count) processed, \(dropped) dropped"), result.stderr)
    }

    /// Eight small frames written at once (one write, read in one `read(2)`) while the engine
    /// is idle: they all arrive together, so each waits for those before it and its latency
    /// (from arrival) is its predecessor's plus its own processing, strictly increasing. A
    /// latency counted from when the frame left the reader's queue would stop growing after
    /// the queue's two places.
    func testLatencyCountsTheTimeAFrameWaitsAfterItArrived() throws {
        let frames = try StreamFrames.dog(count: 9, step: 8, scale: 0.25)
        XCTAssertLessThan(frames.dropFirst().map(\.count).reduce(0, +), 65_536, "one pipe buffer")
        let live = try LiveStream(["stream"] + tinyArguments())
        try live.write(frames[0])
        XCTAssertTrue(live.waitForLines(1), "the first frame was never answered")
        try live.write(Array(frames.dropFirst().joined()))
        let result = try live.finish()
        XCTAssertEqual(result.status, 0, result.stderr)
        let latencies = try result.lines.dropFirst().map { try XCTUnwrap(StreamFrames.object($0.line)?["latency"] as? Double) }
        XCTAssertEqual(latencies.count, 8)
        for k in 1..<latencies.count {
            XCTAssertGreaterThan(latencies[k], latencies[k - 1], "frame \(k + 1) waited for frame \(k): \(latencies)")
        }
    }
}
