import Foundation

/// Reads a decoding ffmpeg's stderr on a thread of its own and keeps what it says about the
/// source: one `FrameInfo` per frame, in order (the `showinfo` filter's lines), the frame rate
/// (`showinfo`'s `config in … frame_rate: 15/1`), the duration (`Duration: 00:00:04.00` or
/// `N/A` for a live source) and its last error line.
///
/// `showinfo` logs a frame before ffmpeg writes it to stdout, so the Nth `FrameInfo` is the
/// size and time of the Nth frame on stdout. stderr is read as it comes, so ffmpeg never
/// blocks on it.
final class FFmpegLog: @unchecked Sendable {
    /// One frame as `showinfo` describes it: its presentation time in seconds (nil when the
    /// source gives none) and its size.
    struct FrameInfo: Equatable {
        var pts: Double?
        var width: Int
        var height: Int
    }

    /// What one line of ffmpeg's stderr says.
    enum Line: Equatable {
        case frame(FrameInfo)
        case frameRate(FrameRate?)
        /// The input's duration in seconds; nil for `N/A`.
        case duration(Double?)
        case noVideoStream
        /// Anything else worth quoting in an error (`http://…: Connection refused`).
        case message(String)
        /// Header, statistics and filter chatter.
        case noise
    }

    private let condition = NSCondition()
    private var frames: [FrameInfo] = []
    private var taken = 0
    private var ended = false
    private let done = DispatchSemaphore(value: 0)
    private var rate: FrameRate?
    private var seconds: Double?
    private var noStream = false
    private var messages: [String] = []

    /// The source's frame rate, once `showinfo` has said it (any thread may ask, as below).
    var frameRate: FrameRate? { condition.withLock { rate } }
    /// The input's duration in seconds; nil while unknown or for a live source.
    var duration: Double? { condition.withLock { seconds } }
    /// ffmpeg found no video stream to decode.
    var noVideoStream: Bool { condition.withLock { noStream } }

    /// Starts reading `descriptor` (ffmpeg's stderr) until it ends.
    init(descriptor: Int32) {
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 14)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += chunk[..<count]
                // ffmpeg ends its statistics with \r and its log lines with \n.
                while let end = pending.firstIndex(where: { $0 == 10 || $0 == 13 }) {
                    record(Self.parse(String(decoding: pending[..<end], as: UTF8.self)))
                    pending.removeSubrange(...end)
                }
            }
            if !pending.isEmpty { record(Self.parse(String(decoding: pending, as: UTF8.self))) }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
            done.signal()
        }
    }

    /// What `nextFrame` found.
    enum Wait {
        case frame(FrameInfo)
        /// stderr ended (ffmpeg exited) with no frame left.
        case ended
        case timedOut
    }

    /// The next frame's description, waiting until `deadline` for it.
    func nextFrame(until deadline: Date) -> Wait {
        condition.lock()
        defer { condition.unlock() }
        while taken == frames.count && !ended {
            if !condition.wait(until: deadline) && taken == frames.count && !ended { return .timedOut }
        }
        guard taken < frames.count else { return .ended }
        defer {
            taken += 1
            if taken == frames.count { frames.removeAll(keepingCapacity: true); taken = 0 }
        }
        return .frame(frames[taken])
    }

    /// Waits until stderr has ended (ffmpeg exited); then every line has been read.
    func waitForEnd() { done.wait(); done.signal() }

    /// ffmpeg's last error line, without its `[component @ 0x…]` prefix; "" when it said none.
    var lastMessage: String { condition.withLock { messages.last ?? "" } }

    private func record(_ line: Line) {
        condition.lock()
        defer { condition.unlock() }
        switch line {
        case .frame(let info):
            frames.append(info)
            condition.broadcast()
        case .frameRate(let value): if rate == nil { rate = value }
        case .duration(let value): seconds = value
        case .noVideoStream: noStream = true
        case .message(let text):
            messages.append(text)
            if messages.count > 8 { messages.removeFirst() }
        case .noise: break
        }
    }

    /// Classifies one line of a decoding ffmpeg's stderr (run with `-vf …,showinfo`).
    static func parse(_ line: String) -> Line {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[Parsed_showinfo") {
            if text.contains("config in time_base:") {
                return .frameRate(value(after: "frame_rate:", in: text).flatMap { FrameRate($0) })
            }
            guard value(after: " n:", in: text) != nil, let size = value(after: " s:", in: text) else { return .noise }
            let parts = size.split(separator: "x")
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return .noise }
            return .frame(FrameInfo(pts: value(after: "pts_time:", in: text).flatMap { Double($0) }, width: width, height: height))
        }
        if text.hasPrefix("Duration:") {
            guard let clock = value(after: "Duration:", in: text)?.trimmingCharacters(in: CharacterSet(charactersIn: ",")) else { return .noise }
            let fields = clock.split(separator: ":").compactMap { Double($0) }
            return .duration(fields.count == 3 ? fields[0] * 3600 + fields[1] * 60 + fields[2] : nil)
        }
        if text.contains("matches no streams") || text.contains("does not contain any stream") { return .noVideoStream }
        let noise = ["Input #", "Output #", "Stream", "Metadata", "Press [q]", "frame=", "video:", "Side data", "encoder", "major_brand",
                     "minor_version", "compatible_brands", "handler_name", "vendor_id", "creation_time", "To ignore this",
                     "Exiting normally", "Last message repeated", "[swscaler", "built with", "configuration:", "lib"]
        if text.isEmpty || line.hasPrefix("  ") || noise.contains(where: text.hasPrefix) { return .noise }
        // "[tcp @ 0x55…] Connection refused" → "Connection refused".
        if text.hasPrefix("["), let close = text.range(of: "] ") { return .message(String(text[close.upperBound...])) }
        return .message(text)
    }

    /// The word after `key` in `text` (up to the next space or comma).
    private static func value(after key: String, in text: String) -> String? {
        guard let range = text.range(of: key) else { return nil }
        let rest = text[range.upperBound...].drop { $0 == " " }
        let word = rest.prefix { $0 != " " && $0 != "," }
        return word.isEmpty ? nil : String(word)
    }
}
