import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Issue #52 item 4: sources fail the way cameras fail, and no child or half-written file
/// outlives the run. A network camera on loopback (`MJPEGServer`) dropping, with and without
/// `--reconnect`; a source that stalls; the decoding ffmpeg killed; ffmpeg missing; the run
/// interrupted once (the video finalised) and twice (nothing left).
final class StreamSourceFailureTests: XCTestCase {
    var folder: URL!
    var video: URL!

    override func setUpWithError() throws {
        folder = try CLI.temporaryFolder(self)
        video = folder.appendingPathComponent("pan.mkv")
        try TestVideos.pan(video, frames: 30, step: 4)
    }

    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> BackgroundRun {
        let cwd = folder.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        return try BackgroundRun(["stream"] + CLI.tinyDetector() + arguments, in: cwd, environment: environment)
    }

    /// Files in `folder` a run may have left half-written (`.NAME.tmp-…`).
    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.contains(".tmp-") }
    }

    func testANetworkSourceThatDropsIsAnErrorWithoutReconnect() throws {
        let server = try MJPEGServer(video: video.path)
        let run = try start([server.url])
        XCTAssertTrue(run.wait { run.lines >= 3 }, run.stderr)
        server.kill()
        run.finish()
        XCTAssertEqual(run.process.terminationStatus, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("darknet-swift: error: \(server.url): the source ended after "), run.stderr)
        XCTAssertTrue(run.stderr.contains("(disconnected)"), run.stderr)
        XCTAssertEqual(run.stderr.split(separator: "\n").filter { $0.contains("error:") }.count, 1, run.stderr)
    }

    /// Killed mid-stream and started again: a warning line per attempt, and frames come again
    /// with their numbers going on; SIGINT then ends the run cleanly.
    func testReconnectResumesAfterTheServerComesBack() throws {
        let server = try MJPEGServer(video: video.path)
        let run = try start([server.url, "--reconnect"])
        XCTAssertTrue(run.wait { run.lines >= 3 }, run.stderr)
        server.kill()
        XCTAssertTrue(run.wait { run.stderr.contains("reconnecting in") }, run.stderr)
        let before = run.lines
        try server.start()
        XCTAssertTrue(run.wait { run.lines >= before + 3 }, "no frame after the server came back:\n\(run.stderr)")
        kill(run.pid, SIGINT)
        run.finish()
        XCTAssertEqual(run.process.terminationStatus, 128 + SIGINT, run.stderr)
        let numbers = try CLI.objects(run.stdout).compactMap { $0["frame"] as? Int }
        XCTAssertEqual(numbers, numbers.sorted(), "frame numbers go on across the reconnection")
        XCTAssertTrue(run.stderr.contains("warning: \(server.url): the source ended after"), run.stderr)
        XCTAssertTrue(run.stderr.contains("reconnecting in 0.5 s (attempt 1 of 10)"), run.stderr)
        XCTAssertTrue(run.stderr.range(of: #"\d+ reconnections?"#, options: .regularExpression) != nil, run.stderr)
    }

    /// A FIFO that gets the start of a video and then nothing: `--timeout 2` ends the wait
    /// with an error line, and ffmpeg (blocked reading the FIFO) is gone.
    func testAStalledSourceTimesOut() throws {
        let fifo = folder.appendingPathComponent("stalled.mkv")
        mkfifo(fifo.path, 0o600)
        let bytes = try Data(contentsOf: video)
        let writer = Thread {
            let fd = open(fifo.path, O_WRONLY)
            guard fd >= 0 else { return }
            _ = bytes.prefix(bytes.count / 3).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            sleep(60)
            close(fd)
        }
        writer.start()
        let run = try start([fifo.path, "--timeout", "2"])
        run.finish()
        XCTAssertEqual(run.process.terminationStatus, 1, run.stderr)
        XCTAssertTrue(run.stderr.range(of: #"stalled\.mkv: no frame for 2 s after \d+ frames \(stalled; see --timeout\)"#,
                                       options: .regularExpression) != nil, run.stderr)
        XCTAssertEqual(run.children.count, 0)
        // Unblock the writer (it is asleep; a reader that opens and closes ends its write).
        let unblock = open(fifo.path, O_RDONLY | O_NONBLOCK)
        if unblock >= 0 { close(unblock) }
    }

    /// `kill -9` on the decoding ffmpeg: one clear error line, status 1, the frames read
    /// still in the finished video, no child and no temporary left.
    func testTheDecoderKilledIsAClearError() throws {
        let output = folder.appendingPathComponent("killed.mp4")
        let run = try start([video.path, "--realtime", "--output", output.path])
        XCTAssertTrue(run.wait { run.lines >= 2 }, run.stderr)
        let decoder = try XCTUnwrap(run.children.first { $0.command.contains("showinfo") }, "\(run.children)")
        kill(decoder.pid, SIGKILL)
        run.finish()
        XCTAssertEqual(run.process.terminationStatus, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("darknet-swift: error: \(video.path): the decoding ffmpeg was killed by signal 9 (SIGKILL) after "),
                      run.stderr)
        XCTAssertGreaterThanOrEqual(try TestVideos.probe(output.path).frames, 2)
        XCTAssertEqual(temporaries(), [])
    }

    /// SIGINT and SIGTERM while a file plays in real time into `--output`: the run stops
    /// reading, finishes the frames read, finalises the video (a whole file, no temporary)
    /// and exits with 128 + the signal; every ffmpeg it started is gone.
    func testOneSignalFinalisesTheVideoAndLeavesNoChild() throws {
        for signal in [SIGINT, SIGTERM] {
            let output = folder.appendingPathComponent("stopped-\(signal).mp4")
            let run = try start([video.path, "--realtime", "--output", output.path])
            XCTAssertTrue(run.wait { run.lines >= 2 && run.children.count == 2 }, "\(run.children) \(run.stderr)")
            let children = run.children.map(\.pid)
            kill(run.pid, signal)
            run.finish()
            XCTAssertEqual(run.process.terminationReason, .exit, run.stderr)
            XCTAssertEqual(run.process.terminationStatus, 128 + signal, run.stderr)
            XCTAssertTrue(children.allSatisfy { !BackgroundRun.isAlive($0) }, "children left: \(children)")
            XCTAssertEqual(temporaries(), [])
            let written = try TestVideos.probe(output.path)
            XCTAssertGreaterThanOrEqual(written.frames, run.lines, "signal \(signal)")
            XCTAssertTrue(run.stderr.contains("(stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"))"), run.stderr)
        }
    }

    /// A second signal while the first is being honoured (sent right after it: of two
    /// handlers only one takes the graceful stop, whatever threads they run on): the run dies
    /// of the second at once, every child killed and the unfinished video removed.
    func testASecondSignalLeavesNothing() throws {
        let output = folder.appendingPathComponent("hard.mp4")
        let run = try start([video.path, "--realtime", "--output", output.path])
        XCTAssertTrue(run.wait { run.lines >= 2 && run.children.count == 2 }, "\(run.children) \(run.stderr)")
        let children = run.children.map(\.pid)
        kill(run.pid, SIGINT)
        kill(run.pid, SIGTERM)
        run.finish()
        XCTAssertEqual(run.process.terminationReason, .uncaughtSignal, run.stderr)
        XCTAssertTrue([SIGINT, SIGTERM].contains(run.process.terminationStatus), "\(run.process.terminationStatus)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.path), "no partial video")
        XCTAssertTrue(children.allSatisfy { !BackgroundRun.isAlive($0) }, "children left: \(children)")
        XCTAssertEqual(temporaries(), [])
    }

    func testAMissingFFmpegSaysHowToInstallIt() throws {
        let result = try CLI.run(["stream"] + CLI.tinyDetector() + [video.path], environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "darknet-swift: error: ffmpeg was not found on PATH (/nonexistent): "
                       + "install it (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg)\n")
    }
}
