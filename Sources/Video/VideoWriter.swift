import Foundation
import Imaging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a video file of RGB frames by piping them to an encoding `ffmpeg`
/// (`ffmpeg -f rawvideo -pix_fmt rgb24 -video_size WxH -framerate RATE -i - [-pix_fmt yuv420p] -f FORMAT TEMP`).
///
/// Rules:
/// - The container comes from the extension: `.mp4`, `.mov`, `.mkv`, `.webm`, `.avi`; the
///   codec is ffmpeg's default for it (H.264 with libx264, VP9 for WebM, MPEG-4 part 2 for
///   AVI), in 4:2:0 when both sides are even (what every player plays).
/// - The video has a constant rate, `frameRate`: a frame is placed at its timestamp, its
///   slot `round((pts − first pts) · rate)`; slots left empty (frames not given: dropped,
///   sampled out) repeat the frame before, a frame for a slot already written is left out,
///   and a timestamp that goes back (a live source reconnected) continues from the last slot.
///   Frames without timestamps take one slot each. A source of constant rate thus gives as
///   many frames as it had, at its rate.
/// - The file is written under a temporary name beside `path` (`.NAME.tmp-PID-N`) and renamed
///   onto `path` by `finish()`; `cancel()`, a failure and `deinit` before `finish` remove it.
///   `VideoProcesses.killAll()` removes it from a signal handler.
public final class VideoWriter: @unchecked Sendable {
    public static let formats = ["mp4": "mp4", "mov": "mov", "mkv": "matroska", "webm": "webm", "avi": "avi"]

    public let path: String
    public let width: Int
    public let height: Int
    public let frameRate: FrameRate
    /// Frames in the file so far (repeated ones included).
    public private(set) var framesWritten = 0
    let temporary: String
    private let child: ChildProcess
    private let log: FFmpegLog
    private let temporarySlot: Int?
    private var firstPts: Double?
    private var lastPts: Double?
    private var lastFrame: [UInt8]?
    private var finished = false

    /// The `ffmpeg` arguments for a video of this size and rate written to `file` as `format`.
    static func arguments(width: Int, height: Int, frameRate: FrameRate, format: String, file: String) -> [String] {
        ["-nostdin", "-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "rgb24",
         "-video_size", "\(width)x\(height)", "-framerate", frameRate.description, "-i", "-"]
            + (width % 2 == 0 && height % 2 == 0 ? ["-pix_fmt", "yuv420p"] : []) + ["-f", format, "-y", file]
    }

    /// Starts the encoder; nothing is at `path` until `finish()`.
    public init(path: String, width: Int, height: Int, frameRate: FrameRate, ffmpeg: FFmpeg) throws(VideoError) {
        guard let format = Self.formats[(path as NSString).pathExtension.lowercased()] else { throw .unsupportedOutput(path: path) }
        self.path = path
        self.width = width
        self.height = height
        self.frameRate = frameRate
        let name = (path as NSString).lastPathComponent
        temporary = ((path as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent(".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        temporarySlot = VideoProcesses.register(temporary: temporary)
        do {
            child = try ChildProcess(ffmpeg.path, Self.arguments(width: width, height: height, frameRate: frameRate, format: format,
                                                                 file: temporary), pipeInput: true, role: .encoder)
        } catch {
            VideoProcesses.unregister(temporary: temporarySlot)
            throw error
        }
        log = FFmpegLog(descriptor: child.standardError)
    }

    deinit { if !finished { cancel() } }

    /// Adds `image` (3 channels, the writer's size) at `pts` seconds (see the type's rules).
    public func append(_ image: Image, pts: Double?) throws(VideoError) {
        guard image.width == width, image.height == height, image.channels == 3 else {
            throw .frameSizeChanged(path: path, expected: "\(width)x\(height)", got: "\(image.width)x\(image.height)")
        }
        try append(rgb24: image.interleavedBytes(), pts: pts)
    }

    /// Adds one RGB24 frame (width × height × 3 bytes) at `pts` seconds.
    public func append(rgb24 frame: [UInt8], pts: Double?) throws(VideoError) {
        guard frame.count == width * height * 3 else {
            throw .frameSizeChanged(path: path, expected: "\(width)x\(height)", got: "\(frame.count) bytes")
        }
        var copies = 1
        if let pts {
            if let last = lastPts, pts < last { firstPts = nil }  // went back: continue from the next slot
            let first = firstPts ?? pts - Double(framesWritten) / frameRate.value
            firstPts = first
            lastPts = pts
            let slot = Int(((pts - first) * frameRate.value).rounded())
            copies = slot - framesWritten + 1
            if copies <= 0 { return }  // its slot is written
            if Double(copies) > frameRate.value * 10 + 1 {
                // A jump of more than 10 s (a live source's clock reset): go on from here.
                firstPts = pts - Double(framesWritten) / frameRate.value
                copies = 1
            }
        }
        if copies > 1, let lastFrame {
            for _ in 1..<copies { try write(lastFrame) }
        }
        try write(frame)
        lastFrame = frame
    }

    /// Ends the video: the encoder finishes the file, which is renamed onto `path`.
    public func finish() throws(VideoError) {
        guard !finished else { return }
        finished = true
        child.closeStandardInput()
        let ending = child.wait()
        log.waitForEnd()
        defer { VideoProcesses.unregister(temporary: temporarySlot) }
        guard ending == .exited(0) else {
            unlink(temporary)
            throw failure(ending)
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw .renameFailed(path: path, code: code)
        }
    }

    /// Stops the encoder and removes the unfinished file.
    public func cancel() {
        finished = true
        child.closeStandardInput()
        _ = child.terminate(grace: 0)
        log.waitForEnd()
        unlink(temporary)
        VideoProcesses.unregister(temporary: temporarySlot)
    }

    private func failure(_ ending: ChildProcess.Ending) -> VideoError {
        switch ending {
        case .exited(let status): return .encoderFailed(path: path, status: status, message: log.lastMessage)
        case .signaled(let signal): return .encoderFailed(path: path, status: -signal, message: log.lastMessage)
        }
    }

    /// Writes one frame to the encoder; a broken pipe (the encoder died) is its failure, never
    /// a SIGPIPE for this process (`DescriptorWriter`).
    private func write(_ frame: [UInt8]) throws(VideoError) {
        guard DescriptorWriter.write(frame, to: child.standardInput, suppressingSIGPIPE: true) == nil else {
            finished = true
            child.closeStandardInput()
            let ending = child.wait()
            log.waitForEnd()
            unlink(temporary)
            VideoProcesses.unregister(temporary: temporarySlot)
            throw failure(ending == .exited(0) ? .exited(1) : ending)
        }
        framesWritten += 1
    }
}
