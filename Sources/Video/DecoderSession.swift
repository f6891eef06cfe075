import Foundation
import Imaging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a decoding ffmpeg on a source: raw RGB24 frames on its stdout, one `showinfo`
/// line per frame on its stderr (`FFmpegLog`), paired in order.
///
/// ffmpeg runs as `ffmpeg -nostdin -hide_banner -nostats [-re] … -i SOURCE -map 0:v:0
/// -vf format=rgb24,showinfo=checksum=0 -fps_mode passthrough -f rawvideo -`: the first video
/// stream, every frame as decoded (no frame duplicated or dropped to a constant rate), each
/// with the source's timestamp.
final class DecoderSession: @unchecked Sendable {
    let input: VideoInput
    private let child: ChildProcess
    let log: FFmpegLog
    /// Set by `stop()`: the child's ending is then the end of the source, not a failure.
    private let stopLock = NSLock()
    private var stopped = false

    static func arguments(for input: VideoInput, realtime: Bool) -> [String] {
        ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "info"] + input.ffmpegArguments(realtime: realtime)
            + ["-map", "0:v:0", "-vf", "format=rgb24,showinfo=checksum=0", "-fps_mode", "passthrough", "-f", "rawvideo", "-"]
    }

    init(ffmpeg: FFmpeg, input: VideoInput, realtime: Bool) throws(VideoError) {
        if let path = input.localPath, !FileManager.default.fileExists(atPath: path) { throw .sourceMissing(input.description) }
        self.input = input
        child = try ChildProcess(ffmpeg.path, Self.arguments(for: input, realtime: realtime), pipeInput: false, role: .decoder)
        log = FFmpegLog(descriptor: child.standardError)
    }

    deinit { stop() }

    /// The source's frame rate, once ffmpeg has said it (before the first frame).
    var frameRate: FrameRate? { log.frameRate }

    /// The next frame's description and RGB24 bytes; nil at the end of the source (or after
    /// `stop`). `framesSoFar` only words the errors. Waits at most `timeout` seconds for each
    /// part of a frame.
    func next(timeout: Double, framesSoFar: Int) throws(VideoError) -> (info: FFmpegLog.FrameInfo, bytes: [UInt8])? {
        switch log.nextFrame(until: Date().addingTimeInterval(timeout)) {
        case .timedOut:
            _ = child.terminate(grace: 0.5)
            if isStopped { return nil }
            throw .stalled(source: input.description, seconds: timeout, frames: framesSoFar)
        case .ended:
            try finish(framesSoFar: framesSoFar)
            return nil
        case .frame(let info):
            let (pixels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
            guard !overflow, pixels <= Image.defaultMaxPixels else {
                stop()
                throw .badFrame(source: input.description, frame: framesSoFar,
                                reason: "\(info.width)x\(info.height) is more than \(Image.defaultMaxPixels) pixels")
            }
            let count = pixels * 3
            var bytes = [UInt8](repeating: 0, count: count)
            var filled = 0
            let deadline = Date().addingTimeInterval(timeout)
            while filled < count {
                var request = pollfd(fd: child.standardOutput, events: Int16(POLLIN), revents: 0)
                let wait = max(0, Int32(deadline.timeIntervalSinceNow * 1000))
                let ready = poll(&request, 1, wait)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 {
                    _ = child.terminate(grace: 0.5)
                    if isStopped { return nil }
                    throw .stalled(source: input.description, seconds: timeout, frames: framesSoFar)
                }
                let got = bytes.withUnsafeMutableBytes { read(child.standardOutput, $0.baseAddress! + filled, count - filled) }
                if got < 0 && errno == EINTR { continue }
                if got <= 0 {
                    try finish(framesSoFar: framesSoFar)
                    if isStopped { return nil }
                    throw .badFrame(source: input.description, frame: framesSoFar,
                                    reason: "ffmpeg's output ended \(filled) bytes into a \(info.width)x\(info.height) frame")
                }
                filled += got
            }
            return (info, bytes)
        }
    }

    /// Ends the child (SIGTERM, then SIGKILL); the source then ends without an error. Returns
    /// once its stderr is read to the end, so no reader is left on a descriptor that closes.
    func stop() {
        stopLock.withLock { stopped = true }
        _ = child.terminate(grace: 0.5)
        log.waitForEnd()
    }

    private var isStopped: Bool { stopLock.withLock { stopped } || VideoProcesses.stopRequested }

    /// After ffmpeg's stderr ended: nothing when the source ended (or we stopped it), else why it did not.
    private func finish(framesSoFar: Int) throws(VideoError) {
        let ending = child.wait()
        log.waitForEnd()
        if isStopped { return }
        let source = input.description
        switch ending {
        case .exited(0):
            // A live source ends by disconnecting; a network file (a known duration) may end.
            if input.isLive && log.duration == nil { throw .disconnected(source: source, frames: framesSoFar, message: log.lastMessage) }
        case .exited(let status):
            if log.noVideoStream { throw .noVideoStream(source) }
            throw .decoderFailed(source: source, status: status, message: log.lastMessage)
        case .signaled(let signal):
            throw .decoderKilled(source: source, signal: signal, frames: framesSoFar)
        }
    }
}
