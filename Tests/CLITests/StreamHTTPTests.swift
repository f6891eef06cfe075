import Foundation
import Imaging
import TestSupport
import XCTest

/// `stream --http PORT` (AlexeyAB's `-mjpeg_port`/`-json_port` habit, issue #55) through the
/// binary, on a live source (an HTTP MJPEG server on loopback playing a pan in a loop): the
/// newest record at /json, annotated JPEG frames at /mjpeg, 404/405/503 as documented, the
/// server gone with the run.
final class StreamHTTPTests: XCTestCase {
    /// One HTTP exchange on 127.0.0.1:`port`: the request sent, then up to `limit` bytes read
    /// until the server closes or `seconds` pass.
    func exchange(_ port: UInt16, _ request: String, limit: Int = 1 << 20, seconds: Int = 10) -> [UInt8] {
        guard let fd = Loopback.connect(port, timeout: seconds) else { return [] }
        defer { close(fd) }
        Loopback.send(fd, request)
        return Loopback.receive(fd, limit: limit)
    }

    func get(_ port: UInt16, _ path: String, method: String = "GET") -> String {
        String(decoding: exchange(port, "\(method) \(path) HTTP/1.1\r\nHost: x\r\n\r\n"), as: UTF8.self)
    }

    /// The body after the head of a whole response.
    func body(_ response: String) -> String {
        response.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    }

    func testFramesAndRecordsOverHTTPWhileTheSourceRuns() throws {
        let folder = try CLI.temporaryFolder(self)
        let video = folder.appendingPathComponent("pan.mp4")
        try TestVideos.pan(video, frames: 30, step: 8)
        let source = try MJPEGServer(video: video.path)
        defer { source.stop() }
        let port = try MJPEGServer.freePort()
        let errors = folder.appendingPathComponent("stderr")
        XCTAssertTrue(FileManager.default.createFile(atPath: errors.path, contents: nil))
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["stream"] + (try CLI.tinyDetector()) + [source.url, "--http", String(port), "--quiet"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        // /json: 503 until the first frame is done, then the newest record.
        var record = ""
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && process.isRunning {
            let response = get(port, "/json")
            if response.hasPrefix("HTTP/1.0 200") {
                record = body(response)
                break
            }
            if !response.isEmpty { XCTAssertTrue(response.hasPrefix("HTTP/1.0 503"), response) }
            usleep(100_000)
        }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any], record)
        XCTAssertNotNil(object["frame"] as? Int, record)
        XCTAssertEqual(object["width"] as? Int, 640)
        XCTAssertNotNil(object["detections"] as? [[String: Any]], record)

        // /mjpeg: parts of annotated JPEG frames of the source's size.
        let stream = exchange(port, "GET /mjpeg HTTP/1.1\r\n\r\n", limit: 400_000, seconds: 20)
        let text = String(decoding: stream, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=darknetswiftframe"), String(text.prefix(200)))
        let marker = Array("Content-Length: ".utf8)
        let start = try XCTUnwrap(stream.indices.first { stream[$0...].starts(with: marker) }, "no part")
        let lengthEnd = try XCTUnwrap(stream[start...].firstIndex(of: 13))
        let length = try XCTUnwrap(Int(String(decoding: stream[(start + marker.count)..<lengthEnd], as: UTF8.self)))
        let jpegStart = lengthEnd + 4
        XCTAssertLessThanOrEqual(jpegStart + length, stream.count, "a whole first frame")
        let frame = try Image(decoding: Array(stream[jpegStart..<min(stream.count, jpegStart + length)]), name: "part")
        XCTAssertEqual([frame.width, frame.height], [640, 480])

        XCTAssertTrue(get(port, "/json", method: "POST").hasPrefix("HTTP/1.0 405 Method Not Allowed"))
        XCTAssertTrue(get(port, "/nothing").hasPrefix("HTTP/1.0 404 Not Found"))
        XCTAssertTrue(body(get(port, "/")).contains("<img src=\"/mjpeg\""))

        // The server ends with the run.
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
        XCTAssertEqual(get(port, "/json"), "", "nothing listens after the run")
    }

    /// A bad value and a port in use are refused before the model loads, in one line.
    func testAPortThatCannotBeUsedIsRefused() throws {
        let bad = try CLI.run(["stream"] + CLI.tinyDetector() + ["--http", "localhost:80x"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("--http localhost:80x: expected PORT or HOST:PORT"), bad.stderr)

        let busy = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(busy) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(busy, $0, length) == 0 && getsockname(busy, $0, &length) == 0 }
        }
        XCTAssertTrue(bound && listen(busy, 1) == 0)
        let port = UInt16(bigEndian: address.sin_port)
        let taken = try CLI.run(["stream"] + CLI.tinyDetector() + ["--http", String(port)])
        XCTAssertEqual(taken.status, 2, taken.stderr)
        XCTAssertTrue(taken.stderr.contains("--http: cannot listen on 127.0.0.1:\(port): Address already in use"), taken.stderr)
        XCTAssertEqual(taken.stderr.split(separator: "\n").count, 1, taken.stderr)
    }
}
