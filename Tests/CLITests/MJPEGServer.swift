import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A network camera on loopback for the tests: ffmpeg playing a video in a loop, in real
/// time, as HTTP MJPEG (`multipart/x-mixed-replace`, ffmpeg's `mpjpeg` muxer with `-listen 1`:
/// one client, served at `url`). `kill()` ends it the way a camera that loses power does
/// (SIGKILL: the connection drops mid-stream); `start()` brings it back on the same port.
final class MJPEGServer {
    let video: String
    let port: UInt16
    private var process: Process?

    var url: String { "http://127.0.0.1:\(port)/live.mjpg" }

    init(video: String) throws {
        self.video = video
        port = try Self.freePort()
        try start()
    }

    deinit { stop() }

    /// Starts the server and waits until it listens (read from /proc/net/tcp: a test
    /// connection would take the one client `-listen 1` serves).
    func start() throws {
        let ffmpeg = try TestVideos.ffmpeg()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", video, "-c:v", "mjpeg", "-q:v", "5",
                             "-f", "mpjpeg", "-listen", "1", url]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(30)
        while !isListening() {
            guard Date() < deadline, process.isRunning else {
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the MJPEG server did not listen on \(url)"])
            }
            usleep(20_000)
        }
    }

    /// Kills the server (SIGKILL) and waits for it.
    func kill() {
        guard let process else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        self.process = nil
    }

    func stop() { kill() }

    /// A port nothing listens on: bound to 0, read back, closed.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A socket of 127.0.0.1:`port` in state LISTEN (0A) in /proc/net/tcp.
    private func isListening() -> Bool {
        let local = String(format: "0100007F:%04X", port)
        let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }
}
