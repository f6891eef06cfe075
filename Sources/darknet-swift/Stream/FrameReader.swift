#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Video

/// Splits a byte stream (stdin) into frames: concatenated JPEG files (MJPEG, split by
/// `JPEGSplitter`) or fixed-size raw frames (`--raw`).
///
/// Rules: stdin is read with `read(2)`, which returns as soon as some bytes are there, so a
/// frame is handed on as soon as its last byte arrives, whatever the block size or rate of
/// the producer. A frame's arrival is the time the read holding its last byte returned.
/// Frames are numbered by arrival from 0, and a corrupt MJPEG frame keeps its number (it
/// comes back as `lost`), so the numbers show every frame the input held. Memory is bounded:
/// bytes between frames are dropped as they are passed, and a frame longer than
/// `maxFrameBytes` without its end stops the stream (`frameTooLarge`, after a `lost` item
/// for it), so a stream that is not MJPEG cannot exhaust memory.
///
/// Never a silent success: before anything is split, stdin's first bytes are compared with
/// the signatures of containers and images (`ContainerSignature`): a video (MP4, Matroska,
/// WebM, AVI, …) or PNG where MJPEG is expected is `notMJPEG`, a container or JPEG file under
/// `--raw` is `rawIsContainer`. An MJPEG stream with no JPEG start marker (`FF D8 FF`) in its
/// first `jpegSearchLimit` bytes, or none before it ended, is `noJPEGStart`.
struct FrameReader: FrameSource {
    enum Kind: Equatable {
        case mjpeg
        case raw(RawFrameSpec)
    }

    typealias Item = FrameItem

    /// Bytes of MJPEG read without a frame start before the stream is refused.
    static let jpegSearchLimit = 1 << 20

    let kind: Kind
    let maxFrameBytes: Int
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Stream offset of `buffer[0]`.
    private var base = 0
    /// Stream offset just past each read still in the buffer, and when that read returned.
    private var reads: [(end: Int, time: UInt64)] = []
    private var splitter = JPEGSplitter()
    /// Raw frames: buffer index of the next frame.
    private var rawStart = 0
    private var chunk = [UInt8](repeating: 0, count: 1 << 20)
    private var ended = false
    private var finished = false
    /// An error to throw on the next call (after the `lost` item of the frame it ended).
    private var pending: StreamError?
    /// Frame numbers handed out so far (frames and lost frames).
    private(set) var framesRead = 0
    private(set) var bytesRead = 0
    /// The first bytes were checked against the container signatures.
    private var sniffed = false
    /// First bytes of the stream, for messages.
    private var head: [UInt8] = []

    init(kind: Kind, maxFrameBytes: Int, descriptor: Int32 = 0) {
        self.kind = kind
        self.maxFrameBytes = maxFrameBytes
        self.descriptor = descriptor
    }

    /// The next frame or lost frame; nil at the end of the stream. Throws when the stream
    /// cannot go on (a read error, an oversized frame, a raw stream cut inside a frame).
    mutating func next() throws(StreamError) -> Item? {
        if let error = pending {
            pending = nil
            finished = true
            throw error
        }
        while !finished {
            if let item = try split() { return item }
            if ended {
                if let item = try finish() { return item }
                finished = true
                return nil
            }
            compact()
            try read()
        }
        return nil
    }

    /// Nothing to do on stdin: a pipe's writer ends it.
    func stop() {}

    private mutating func split() throws(StreamError) -> Item? {
        if !sniffed {
            guard buffer.count >= ContainerSignature.length || ended else { return nil }
            try sniff()
        }
        switch kind {
        case .raw(let spec):
            let size = spec.frameBytes
            guard buffer.count - rawStart >= size else { return nil }
            defer { rawStart += size }
            return frame(Array(buffer[rawStart..<rawStart + size]), end: rawStart + size)
        case .mjpeg:
            switch splitter.next(in: buffer) {
            case .frame(let range):
                return frame(Array(buffer[range]), end: range.upperBound)
            case .lost(let range, let damage):
                return lost(.corruptFrame(frame: framesRead, offset: base + range.lowerBound,
                                          damaged: base + damage.at, damage: damage.description))
            case .needMore:
                if framesRead == 0 && splitter.start == nil && bytesRead >= Self.jpegSearchLimit {
                    throw .noJPEGStart(bytes: bytesRead, ended: false, magic: Self.hex(head))
                }
                if let start = splitter.start, buffer.count - start > maxFrameBytes {
                    pending = .frameTooLarge(frame: framesRead, offset: base + start, limit: maxFrameBytes)
                    return lost(pending!)
                }
                return nil
            }
        }
    }

    /// At the end of the input: a raw stream must end on a frame boundary; an MJPEG frame
    /// without its end is lost (and splitting goes on after it, see `JPEGSplitter`).
    private mutating func finish() throws(StreamError) -> Item? {
        switch kind {
        case .raw(let spec):
            let left = buffer.count - rawStart
            if left > 0 {
                finished = true
                throw .rawTruncated(spec, frame: framesRead, bytes: left, total: bytesRead)
            }
        case .mjpeg:
            if let start = splitter.endOfInput() {
                return lost(.cutFrame(frame: framesRead, offset: base + start, bytes: buffer.count - start))
            }
            if framesRead == 0 && bytesRead > 0 {
                finished = true
                throw .noJPEGStart(bytes: bytesRead, ended: true, magic: Self.hex(head))
            }
        }
        return nil
    }

    /// Refuses a stream whose first bytes name another format (see the type's rules). Under
    /// `--raw` only signatures of 4 bytes or more count (raw pixels may start like a 3-byte
    /// one), and a JPEG only with its JFIF or Exif header.
    private mutating func sniff() throws(StreamError) {
        sniffed = true
        head = Array(buffer.prefix(8))
        guard let format = ContainerSignature.name(of: buffer) else { return }
        switch kind {
        case .mjpeg:
            if format != "JPEG" { throw .notMJPEG(format: format) }
        case .raw(let spec):
            let weak = ["MPEG program stream", "MPEG transport stream", "FLV"]
            let jfif = buffer.count > 10 && (Array(buffer[6..<10]) == Array("JFIF".utf8) || Array(buffer[6..<10]) == Array("Exif".utf8))
            if weak.contains(format) || (format == "JPEG" && !jfif) { return }
            throw .rawIsContainer(spec, format: format)
        }
    }

    /// "47 49 46 38" (up to 8 bytes in hex), for messages.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "none" : bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
    }

    private mutating func frame(_ bytes: [UInt8], end: Int) -> Item {
        let stream = base + end
        let arrival = reads.first { $0.end >= stream }?.time ?? DispatchTime.now().uptimeNanoseconds
        defer { framesRead += 1 }
        var pixels = Frame.Pixels.encoded
        if case .raw(let spec) = kind { pixels = .raw(width: spec.width, height: spec.height, format: spec.format) }
        // The wall-clock time of the read that completed the frame.
        let now = DispatchTime.now().uptimeNanoseconds
        let time = Date().timeIntervalSince1970 - Double(now - min(arrival, now)) / 1e9
        return .frame(Frame(index: framesRead, bytes: bytes, pixels: pixels, arrival: arrival, time: time))
    }

    private mutating func lost(_ error: StreamError) -> Item {
        defer { framesRead += 1 }
        return .lost(index: framesRead, error: error)
    }

    /// Drops the bytes no frame needs any more once they are at least half the buffer, so
    /// copying stays linear in the bytes read.
    private mutating func compact() {
        let keep: Int
        if case .raw = kind { keep = rawStart } else { keep = splitter.keepFrom }
        guard keep > 0, keep * 2 >= buffer.count || keep >= 1 << 20 else { return }
        buffer.removeFirst(keep)
        base += keep
        if case .raw = kind { rawStart -= keep } else { splitter.shift(by: keep) }
        reads.removeAll { $0.end <= base }
    }

    private mutating func read() throws(StreamError) {
        let count = chunk.withUnsafeMutableBytes { bytes in
            #if canImport(Glibc)
            Glibc.read(descriptor, bytes.baseAddress, bytes.count)
            #else
            Darwin.read(descriptor, bytes.baseAddress, bytes.count)
            #endif
        }
        if count > 0 {
            buffer.append(contentsOf: chunk[..<count])
            bytesRead += count
            reads.append((base + buffer.count, DispatchTime.now().uptimeNanoseconds))
        } else if count == 0 {
            ended = true
        } else {
            let code = errno
            switch code {
            case EINTR: return
            case EAGAIN, EWOULDBLOCK:
                var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&request, 1, -1)
            default: throw .read(code)
            }
        }
    }

    /// For `--raw`: when stdin (`descriptor`) is a regular file, the bytes left in it must be a
    /// whole number of frames, so a wrong size fails before any frame is processed.
    static func checkRawSize(descriptor: Int32, spec: RawFrameSpec) throws(StreamError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        let offset = lseek(descriptor, 0, SEEK_CUR)
        let left = Int(status.st_size) - Int(max(0, offset))
        if left % spec.frameBytes != 0 { throw .rawSizeMismatch(spec, bytes: left) }
    }
}
