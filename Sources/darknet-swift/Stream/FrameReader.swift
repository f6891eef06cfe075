#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Imaging

/// A frame split from stdin: its number in the input, its bytes (a JPEG file or W·H·3 RGB
/// bytes) and when its last byte was read (`DispatchTime` nanoseconds), for the latency.
struct Frame: Sendable {
    var index: Int
    var bytes: [UInt8]
    var arrival: UInt64
}

/// Splits a byte stream (stdin) into frames: concatenated JPEG files (MJPEG, split by
/// `JPEGSplitter`) or fixed-size raw RGB24 frames.
///
/// Rules: stdin is read with `read(2)`, which returns as soon as some bytes are there, so a
/// frame is handed on as soon as its last byte arrives, whatever the block size or rate of
/// the producer. A frame's arrival is the time the read holding its last byte returned.
/// Frames are numbered by arrival from 0, and a corrupt MJPEG frame keeps its number (it
/// comes back as `lost`), so the numbers show every frame the input held. Memory is bounded:
/// bytes between frames are dropped as they are passed, and a frame longer than
/// `maxFrameBytes` without its end stops the stream (`frameTooLarge`, after a `lost` item
/// for it), so a stream that is not MJPEG cannot exhaust memory.
struct FrameReader {
    enum Kind {
        case mjpeg
        case raw(width: Int, height: Int)
    }

    enum Item {
        case frame(Frame)
        /// A frame that was corrupt or cut short: its number and why.
        case lost(index: Int, error: StreamError)
    }

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

    private mutating func split() throws(StreamError) -> Item? {
        switch kind {
        case .raw(let width, let height):
            let size = width * height * 3
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
        case .raw(let width, let height):
            let left = buffer.count - rawStart
            if left > 0 {
                finished = true
                throw .rawTruncated(width: width, height: height, frame: framesRead, bytes: left, total: bytesRead)
            }
        case .mjpeg:
            if let start = splitter.endOfInput() {
                return lost(.cutFrame(frame: framesRead, offset: base + start, bytes: buffer.count - start))
            }
        }
        return nil
    }

    private mutating func frame(_ bytes: [UInt8], end: Int) -> Item {
        let stream = base + end
        let arrival = reads.first { $0.end >= stream }?.time ?? DispatchTime.now().uptimeNanoseconds
        defer { framesRead += 1 }
        return .frame(Frame(index: framesRead, bytes: bytes, arrival: arrival))
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
    static func checkRawSize(descriptor: Int32, width: Int, height: Int) throws(StreamError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        let offset = lseek(descriptor, 0, SEEK_CUR)
        let left = Int(status.st_size) - Int(max(0, offset))
        let frameBytes = width * height * 3
        if left % frameBytes != 0 { throw .rawSizeMismatch(width: width, height: height, bytes: left) }
    }
}

extension Image {
    /// A raw RGB24 frame (row-major, 3 bytes per pixel) as darknet's planar float image (`byte / 255`).
    init(rgb24 bytes: [UInt8], width: Int, height: Int) {
        let plane = width * height
        var data = [Float](repeating: 0, count: 3 * plane)
        for i in 0..<plane {
            for c in 0..<3 { data[c * plane + i] = Float(Double(bytes[i * 3 + c]) / 255) }  // as the JPEG/PNG decoders
        }
        self.init(width: width, height: height, channels: 3, data: data)
    }
}
