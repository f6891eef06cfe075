import Foundation
import Imaging

/// Splits a byte stream (stdin) into frames: concatenated JPEG files (MJPEG, as
/// `ffmpeg -f image2pipe -c:v mjpeg -` writes) or fixed-size raw RGB24 frames.
///
/// JPEG frames are found by walking the marker structure, not by searching for FF D9: a frame
/// starts at SOI (FF D8); length-prefixed segments (APPn/EXIF thumbnails, DQT, DHT, SOF, …)
/// are skipped whole, so an FF D9 inside them (an embedded thumbnail) does not end the frame;
/// entropy-coded data after SOS ends at the first FF not followed by 00 or RST0–7; the frame
/// ends at EOI (FF D9). Bytes between frames are ignored. A frame longer than `maxFrameBytes`
/// is an error (`frameTooLarge`), so a stream that is not MJPEG cannot exhaust memory.
struct FrameReader {
    enum Kind {
        case mjpeg
        case raw(width: Int, height: Int)
    }

    let kind: Kind
    let maxFrameBytes: Int
    private let input: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false
    private(set) var framesRead = 0

    init(kind: Kind, maxFrameBytes: Int, input: FileHandle = .standardInput) {
        self.kind = kind
        self.maxFrameBytes = maxFrameBytes
        self.input = input
    }

    /// The next frame's bytes (JPEG file or W·H·3 RGB bytes); nil at the end of the stream.
    mutating func next() throws -> [UInt8]? {
        while true {
            switch kind {
            case .raw(let width, let height):
                let size = width * height * 3
                if buffer.count - position >= size {
                    framesRead += 1
                    defer { position += size }
                    return Array(buffer[position..<position + size])
                }
            case .mjpeg:
                switch JPEGSplitter.frameEnd(in: buffer, from: position) {
                case .frame(let start, let end):
                    framesRead += 1
                    position = end
                    return Array(buffer[start..<end])
                case .noStart:
                    position = max(position, buffer.count - 1)  // keep a trailing FF
                case .incomplete(let start):
                    position = start
                    if buffer.count - start > maxFrameBytes { throw CLIError.frameTooLarge(frame: framesRead, limit: maxFrameBytes) }
                }
            }
            if ended {
                let left = buffer.count - position
                if case .raw = kind, left > 0 { throw CLIError.truncatedFrame(frame: framesRead, bytes: left) }
                if case .mjpeg = kind, left > 2 { throw CLIError.truncatedFrame(frame: framesRead, bytes: left) }
                return nil
            }
            refill()
        }
    }

    private mutating func refill() {
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        let chunk = input.readData(ofLength: 1 << 20)
        if chunk.isEmpty { ended = true } else { buffer += chunk }
    }
}

enum JPEGSplitter {
    enum Scan: Equatable {
        case frame(start: Int, end: Int)
        case incomplete(start: Int)
        case noStart
    }

    /// Finds the first complete JPEG at or after `from` (see `FrameReader`).
    static func frameEnd(in bytes: [UInt8], from: Int) -> Scan {
        var start = from
        while start + 1 < bytes.count && !(bytes[start] == 0xFF && bytes[start + 1] == 0xD8) { start += 1 }
        if start + 1 >= bytes.count { return .noStart }
        var i = start + 2
        var inScan = false
        while i + 1 < bytes.count {
            if bytes[i] != 0xFF { i += 1; continue }
            let marker = bytes[i + 1]
            if inScan && (marker == 0x00 || (0xD0...0xD7).contains(marker)) { i += 2; continue }
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD9 { return .frame(start: start, end: i + 2) }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xD8 { i += 2; continue }
            guard i + 3 < bytes.count else { return .incomplete(start: start) }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            i += 2 + length
            inScan = marker == 0xDA
        }
        return .incomplete(start: start)
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
