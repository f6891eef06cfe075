import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The server under faults, through the real binary: 1,000 requests from eight clients at
/// once, about one in ten malformed or oversized, some cut off mid-upload, some sent slowly.
/// The server never crashes, answers each valid request with `detect`'s answer, answers the
/// others only with documented codes, and its memory and open files stay bounded; SIGTERM
/// under load answers every request it accepted and exits 0.
final class ServeFaultTests: XCTestCase {
    enum Kind: CaseIterable { case valid, slow, malformed, oversized, cut }

    struct Load {
        let models: ServeModels
        let photos: [String]
        let expected: [String]
        let junk: String
        let oversized: String
        let large: String

        init(_ testCase: XCTestCase) throws {
            let models = try ServeModels(testCase)
            let photos = try (0..<4).map { try models.photo("p\($0).png", width: 80 + 9 * $0, height: 70, seed: UInt64(40 + $0)) }
            expected = try photos.map { ServeDetectTests.comparable(try ServeDetectTests.cliJSON(models, $0, ["--thresh", "0.3"])) }
            self.models = models
            self.photos = photos
            var generator = SplitMix64(state: 77)
            junk = try TestData.temporaryFile(Data((0..<3000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }), name: "junk", testCase: testCase)
            oversized = try TestData.temporaryFile(Data(count: (1 << 20) + 1), name: "oversized", testCase: testCase)
            large = try models.photo("large.png", width: 300, height: 300, seed: 50)
        }

        /// The kind of request `index` (seeded: about 10 % malformed or oversized, 4 % cut, 4 % slow).
        static func kind(_ index: Int) -> Kind {
            var generator = SplitMix64(state: UInt64(index) &* 0x9E37_79B9)
            switch generator.next() % 100 {
            case 0..<5: return .malformed
            case 5..<10: return .oversized
            case 10..<14: return .cut
            case 14..<18: return .slow
            default: return .valid
            }
        }

        func arguments(_ kind: Kind, _ index: Int, _ url: String) -> [String] {
            let photo = photos[index % photos.count]
            switch kind {
            case .valid: return ["--data-binary", "@" + photo, url]
            case .slow: return ["--limit-rate", "100k", "--data-binary", "@" + photo, url]
            case .malformed:
                return index % 2 == 0 ? ["--data-binary", "@" + junk, url]
                    : ["-H", "Content-Type: multipart/form-data; boundary=x", "--data-binary", "@" + photo, url]
            case .oversized: return ["--data-binary", "@" + oversized, url]
            case .cut: return ["--limit-rate", "20k", "--max-time", "0.2", "--data-binary", "@" + large, url]
            }
        }

        /// Checks one answer against what its kind allows.
        func check(_ kind: Kind, _ index: Int, _ answer: Curl.Result, file: StaticString = #filePath, line: UInt = #line) {
            switch kind {
            case .valid, .slow:
                XCTAssertEqual(answer.status, 200, "\(kind) \(index): \(answer.text)", file: file, line: line)
                XCTAssertEqual(ServeDetectTests.comparable(answer.text), expected[index % photos.count], "\(kind) \(index)", file: file, line: line)
            case .malformed:
                XCTAssertTrue([400, 415].contains(answer.status), "\(index): \(answer.status) \(answer.text)", file: file, line: line)
                XCTAssertTrue(["bad_image", "bad_request", "unsupported_media_type"].contains(answer.json["code"] as? String ?? ""), answer.text,
                              file: file, line: line)
            case .oversized:
                XCTAssertEqual(answer.status, 413, "\(index): \(answer.text)", file: file, line: line)
                XCTAssertEqual(answer.json["code"] as? String, "body_too_large", file: file, line: line)
            case .cut:
                XCTAssertEqual(answer.exit, 28, "\(index): curl gave up mid-upload", file: file, line: line)
            }
        }
    }

    func testAThousandRequestsWithFaults() throws {
        let load = try Load(self)
        let server = try ServeProcess(load.models.arguments + ["--max-batch", "4", "--batch-window-ms", "2", "--max-body-mb", "1"],
                                      testCase: self)
        try server.waitReady()
        let url = server.base + "/v1/models/cheap/detect?thresh=0.3"
        // Warm up (the network pool, the thread pools), then note the resources.
        for index in 0..<20 { load.check(.valid, index, try Curl.run(load.arguments(.valid, index, url))) }
        let before = server.resources
        let total = 1000, clients = 8
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var values: [(Int, Curl.Result)] = []
        }
        let collected = Answers()
        let group = DispatchGroup()
        for client in 0..<clients {
            group.enter()
            Thread {
                for index in stride(from: client, to: total, by: clients) {
                    let answer = (try? Curl.run(load.arguments(Load.kind(index), index, url))) ?? Curl.Result(status: -1, body: Data(), headers: "")
                    collected.lock.withLock { collected.values.append((index, answer)) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        XCTAssertTrue(server.process.isRunning, "the server is alive: \(server.log.suffix(2000))")
        XCTAssertEqual(collected.values.count, total)
        var counts: [Kind: Int] = [:]
        for (index, answer) in collected.values {
            let kind = Load.kind(index)
            counts[kind, default: 0] += 1
            load.check(kind, index, answer)
        }
        XCTAssertGreaterThan(counts[.malformed, default: 0] + counts[.oversized, default: 0], 70, "\(counts)")
        XCTAssertGreaterThan(counts[.cut, default: 0], 20, "\(counts)")
        XCTAssertGreaterThan(counts[.slow, default: 0], 20, "\(counts)")
        // After the load: a good request still answered, nothing leaked.
        load.check(.valid, 0, try Curl.run(load.arguments(.valid, 0, url)))
        let after = server.resources
        XCTAssertLessThanOrEqual(after.openFiles, before.openFiles + 16, "open files \(before.openFiles) → \(after.openFiles)")
        XCTAssertLessThanOrEqual(after.rssKiB, before.rssKiB + 128 * 1024, "RSS \(before.rssKiB) → \(after.rssKiB) KiB")
        XCTAssertFalse(server.log.contains("status=500"), server.log.split(separator: "\n").filter { $0.contains("status=500") }.prefix(5).joined(separator: "\n"))
        XCTAssertEqual(server.terminate(), 0, server.log.suffix(2000).description)
        print("ServeFaultTests: \(counts), RSS \(before.rssKiB) → \(after.rssKiB) KiB, open files \(before.openFiles) → \(after.openFiles)")
    }

    /// SIGTERM while eight clients send: every request is answered 200 before the drain or 503
    /// `not_ready` after it, or its connection is refused or reset before the server read it
    /// (curl 7, 56: the listener closing); every request the server read (its log line) was
    /// answered (the client has its status); exit 0.
    func testSIGTERMUnderLoadLosesNoAcceptedRequest() throws {
        let load = try Load(self)
        let server = try ServeProcess(load.models.slowArguments(milliseconds: 20) + ["--max-batch", "4", "--batch-window-ms", "2"],
                                      testCase: self)
        try server.waitReady()
        let url = server.base + "/v1/models/slow/detect?thresh=0.3"
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var values: [(Int, Curl.Result)] = []
            var stop = false
        }
        let collected = Answers()
        let group = DispatchGroup()
        for client in 0..<8 {
            group.enter()
            Thread {
                var index = client
                while !collected.lock.withLock({ collected.stop }) {
                    let answer = (try? Curl.run(["--max-time", "60"] + load.arguments(.valid, index, url)))
                        ?? Curl.Result(status: -1, body: Data(), headers: "")
                    collected.lock.withLock {
                        collected.values.append((index, answer))
                        if answer.exit == 7 { collected.stop = true }
                    }
                    index += 8
                }
                group.leave()
            }.start()
        }
        try server.wait { collected.lock.withLock { collected.values.count } >= 40 }
        kill(server.pid, SIGTERM)
        let status = server.terminate()
        collected.lock.withLock { collected.stop = true }
        group.wait()
        XCTAssertEqual(status, 0, server.log.suffix(2000).description)
        var answered = 0, refused = 0, received = 0
        for (index, answer) in collected.values {
            if answer.status > 0 { received += 1 }
            switch answer.status {
            case 200:
                answered += 1
                XCTAssertEqual(ServeDetectTests.comparable(answer.text), load.expected[index % load.photos.count])
            case 503: XCTAssertEqual(answer.json["code"] as? String, "not_ready", answer.text)
            default:
                refused += 1
                XCTAssertTrue([7, 52, 56].contains(answer.exit), "request \(index): \(answer.status), curl \(answer.exit)")
            }
        }
        let read = server.log.components(separatedBy: "route=/v1/models/{name}/detect").count - 1
        XCTAssertEqual(read, received, "requests the server read and answered = answers the clients got")
        XCTAssertGreaterThanOrEqual(answered, 40)
        print("ServeFaultTests: SIGTERM under load: \(answered) answered, \(refused) refused at connect, \(collected.values.count) in all")
    }
}
