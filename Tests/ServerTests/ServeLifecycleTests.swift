import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Limits and lifecycle through the real binary, each forward pass made to last 400 ms so
/// that requests wait: a full queue (503 + Retry-After), a deadline (504), a client leaving (its job
/// dropped), SIGTERM (not ready, accepted requests answered, exit 0).
final class ServeLifecycleTests: XCTestCase {
    static func detect(_ server: ServeProcess, _ photo: String, _ extra: [String] = []) -> [String] {
        extra + ["--data-binary", "@" + photo, server.base + "/v1/models/slow/detect"]
    }

    /// While its models load the server is live but not ready: the weights come from a FIFO
    /// that no one writes yet, so the load waits in its open(2). Ready and a detect answer 503
    /// (`{"ready":false}`, and `not_ready`); once the test writes the weights into the FIFO, 200.
    func testNotReadyWhileLoading() throws {
        let models = try ServeModels(self)
        let fifo = models.folder.appendingPathComponent("cheap-weights.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let server = try ServeProcess(["--model", "cheap=\(models.detectorCfg),\(fifo),\(models.names)"], testCase: self)
        let photo = try models.photo("p.png", seed: 1)
        XCTAssertEqual(try Curl.get(server.base + "/v2/health/live").status, 200)
        let ready = try Curl.get(server.base + "/v2/health/ready")
        XCTAssertEqual(ready.status, 503, ready.text)
        XCTAssertEqual(ready.json["ready"] as? Bool, false, ready.text)
        let early = try Curl.post(server.base + "/v1/models/cheap/detect", file: photo)
        XCTAssertEqual(early.status, 503, early.text)
        XCTAssertEqual(early.json["code"] as? String, "not_ready", early.text)

        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        handle.write(try Data(contentsOf: URL(fileURLWithPath: models.detectorWeights)))
        try handle.close()
        try server.waitReady(timeout: 60)
        XCTAssertEqual(try Curl.post(server.base + "/v1/models/cheap/detect", file: photo).status, 200)
    }

    func testSIGTERMAnswersEveryAcceptedRequestThenExitsZero() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.slowArguments() + ["--max-batch", "1"], testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", seed: 1)
        let expected = try Curl.post(server.base + "/v1/models/slow/detect", file: photo)
        XCTAssertEqual(expected.status, 200, expected.text)
        let clients = Background { Curl.concurrently((0..<6).map { _ in Self.detect(server, photo) }) }
        // Six accepted: five waiting, one running.
        try server.wait { (try server.metric("darknet_queue_depth{model=\"slow\"}") ?? 0) >= 5 }
        kill(server.pid, SIGTERM)
        try server.wait { try Curl.get(server.base + "/v2/health/ready").status != 200 }
        let late = try Curl.post(server.base + "/v1/models/slow/detect", file: photo)
        if late.status != 0 {
            XCTAssertEqual(late.status, 503, late.text)
            XCTAssertEqual(late.json["code"] as? String, "not_ready")
        }
        XCTAssertEqual(server.terminate(), 0, server.log)
        for answer in clients.value {
            XCTAssertEqual(answer.status, 200, answer.text)
            XCTAssertEqual(ServeDetectTests.comparable(answer.text), ServeDetectTests.comparable(expected.text))
        }
        XCTAssertTrue(server.log.contains("drained"), server.log)
    }

    func testAFullQueueIs503WithRetryAfter() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.slowArguments() + ["--max-batch", "1", "--queue", "1"], testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", seed: 1)
        let answers = Curl.concurrently((0..<8).map { _ in Self.detect(server, photo) })
        let refused = answers.filter { $0.status == 503 }
        XCTAssertEqual(answers.filter { $0.status == 200 }.count + refused.count, 8, answers.map(\.text).joined(separator: "\n"))
        XCTAssertFalse(refused.isEmpty, "one runs, one waits: eight at once overflow a queue of one")
        for answer in refused {
            XCTAssertEqual(answer.json["code"] as? String, "queue_full", answer.text)
            XCTAssertTrue(answer.headers.lowercased().contains("retry-after: 1"), answer.headers)
        }
    }

    func testADeadlinePassedIs504() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.slowArguments() + ["--deadline-ms", "1"], testCase: self)
        try server.waitReady()
        let answer = try Curl.run(["--max-time", "10", "--data-binary", "@" + (try models.photo("p.png", seed: 1)), server.base + "/v1/models/slow/detect"])
        XCTAssertEqual(answer.status, 504, answer.text + server.log)
        XCTAssertEqual(answer.json["code"] as? String, "deadline_exceeded", answer.text)
    }

    /// Deadlines that pass at every point of a request's life (while its photo decodes, as it
    /// is queued, while it waits, during its pass): photos from 16×12 to 1024×768 decode in
    /// very different times, thirty at once, against deadlines of 1, 40 and 150 ms and 5 ms
    /// passes. Every request is answered, 200 or 504 (`deadline_exceeded`) or 503
    /// (`queue_full`), and the server then still answers and drains. An expired job answered
    /// under the queue's lock deadlocked against the deadline's cancellation, and from then on
    /// the server answered no one (`InferenceQueueTests` has the race alone).
    func testEveryRequestIsAnsweredWhereverItsDeadlinePasses() throws {
        let models = try ServeModels(self)
        let sizes = [(16, 12), (96, 72), (320, 240), (640, 480), (1024, 768)]
        let photos = try sizes.enumerated().map { index, size in
            try models.photo("p\(index).png", width: size.0, height: size.1, seed: UInt64(index + 1))
        }
        // 1 ms: past before any photo is decoded; longer: past while some wait or run.
        for deadline in [1, 40, 150] {
            let server = try ServeProcess(models.slowArguments(milliseconds: 5)
                + ["--deadline-ms", String(deadline), "--queue", "16", "--drain-seconds", "5"], testCase: self)
            try server.waitReady()
            for round in 0..<3 {
                let answers = Curl.concurrently((0..<30).map { index in
                    Self.detect(server, photos[(index + round) % photos.count], ["--max-time", "20"])
                })
                for answer in answers {
                    XCTAssertTrue([200, 503, 504].contains(answer.status),
                                  "--deadline-ms \(deadline), round \(round): \(answer.status) (curl \(answer.exit)) \(answer.text)")
                    if answer.status == 504 { XCTAssertEqual(answer.json["code"] as? String, "deadline_exceeded", answer.text) }
                    if answer.status == 503 { XCTAssertEqual(answer.json["code"] as? String, "queue_full", answer.text) }
                }
                guard answers.allSatisfy({ $0.status != 0 }) else { return }
            }
            XCTAssertEqual(try Curl.get(server.base + "/v2/health/ready").status, 200)
            XCTAssertEqual(server.terminate(timeout: 60), 0, server.log)
        }
    }

    /// A request that outlives `--drain-seconds` (a 60 s pass) does not keep the process: it
    /// exits 1 and its log names the requests it abandoned.
    func testADrainTimeoutExitsOneNamingTheAbandonedRequests() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.slowArguments(milliseconds: 60_000) + ["--max-batch", "1", "--drain-seconds", "1"],
                                      testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", seed: 1)
        let clients = Background { Curl.concurrently((0..<2).map { _ in Self.detect(server, photo, ["--max-time", "120"]) }) }
        // One running, one waiting.
        try server.wait { (try server.metric("darknet_queue_depth{model=\"slow\"}") ?? 0) >= 1 }
        XCTAssertEqual(server.terminate(timeout: 60), 1, server.log)
        XCTAssertTrue(server.log.contains("drain timeout"), server.log)
        XCTAssertTrue(server.log.contains("abandoned=2"), server.log)
        XCTAssertEqual(clients.value.map(\.status), [0, 0], "the abandoned requests get no answer: their connections close")
    }

    func testAClientThatLeavesHasItsQueuedJobDropped() throws {
        let models = try ServeModels(self)
        let server = try ServeProcess(models.slowArguments() + ["--max-batch", "1"], testCase: self)
        try server.waitReady()
        let photo = try models.photo("p.png", seed: 1)
        let clients = Background { Curl.concurrently((0..<3).map { _ in Self.detect(server, photo) }) }
        try server.wait { (try server.metric("darknet_queue_depth{model=\"slow\"}") ?? 0) >= 2 }
        // Three more that give up while the three ahead of them run.
        let gone = Curl.concurrently((0..<3).map { _ in Self.detect(server, photo, ["--max-time", "0.3"]) })
        XCTAssertTrue(gone.allSatisfy { $0.status == 0 }, gone.map(\.text).joined())
        XCTAssertEqual(clients.value.map(\.status), [200, 200, 200])
        try server.wait { (try server.metric("darknet_queue_depth{model=\"slow\"}") ?? 1) == 0 }
        XCTAssertEqual(try server.metric("darknet_images_total{model=\"slow\"}"), 3, "the jobs of the clients that left never ran")
        XCTAssertEqual(try server.metric("darknet_dropped_total{model=\"slow\",reason=\"cancelled\"}"), 3)
    }
}
