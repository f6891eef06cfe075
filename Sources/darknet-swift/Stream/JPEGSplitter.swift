#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds JPEG frames in a growing byte buffer (MJPEG: concatenated JPEG files, as
/// `ffmpeg -f image2pipe -c:v mjpeg -` writes) and resynchronises after a corrupt one, so a
/// broken frame costs that frame only. Incremental: each call goes on where the last stopped,
/// so every byte is looked at a bounded number of times however the data arrives.
///
/// Rules:
/// - A frame starts at `FF D8 FF` (SOI and the first marker); bytes between frames are
///   skipped (cameras pad frames).
/// - Before the first scan (SOS, `FF DA`) the frame is a chain of markers: `FF 01` stands
///   alone; SOFn, DHT, DQT, DRI, APPn, COM, … (`C0`–`CF`, `DA`–`DF`, `E0`–`FE`) carry a
///   big-endian length ≥ 2 and are skipped whole, so an `FF D9` inside an APPn (an EXIF
///   thumbnail) does not end the frame. After a segment other than SOS the next byte must be
///   `FF`; a segment must not hold `FF D8 FF` (a length that runs into the next frame) unless it
///   is an APPn that also holds an `FF D9` after it (a whole thumbnail). SOS must be 6 + 2·Ns
///   bytes long with Ns in 1…4.
/// - After SOS comes entropy-coded data: `FF 00` and `FF D0`–`D7` (RSTn) belong to it; `FF FF`
///   is fill; only the segments a multi-scan JPEG puts between scans may follow (DHT `C4`, DAC
///   `CC`, DQT `DB`, DNL `DC`, DRI `DD`, SOS `DA`).
/// - `FF D9` (EOI) ends the frame.
/// - `FF D8 FF` inside a frame means the frame was cut: it is lost and the new frame starts
///   there. Any other break of these rules loses the frame, and the search for the next
///   `FF D8 FF` restarts 2 bytes after the start of the frame's last length-prefixed segment
///   (or its SOI): a wrong length there may have jumped over the next frame. A corrupt scan
///   cannot hold `FF D8 FF` (it would have ended the frame there), so a resync searches a
///   scan's bytes once more at most, and a segment's only when its length was wrong (a
///   segment is at most 64 KiB). At the end of the input a frame without its end is lost,
///   and the search restarts as after a break, so frames a wrong length had hidden still
///   come out.
struct JPEGSplitter {
    /// What `next(in:)` found. Ranges are indices into the buffer passed in.
    enum Event: Equatable {
        case frame(Range<Int>)
        case lost(Range<Int>, Damage)
        /// The buffer ends inside a frame or between frames: read more.
        case needMore
    }

    /// Why a frame was lost; `at` is the index of the offending marker or byte.
    enum Damage: Equatable, CustomStringConvertible {
        case nextFrameStarted(at: Int)
        case badMarker(UInt8, at: Int)
        case badLength(UInt8, at: Int)
        case segmentOverrun(UInt8, at: Int)
        case notAMarker(at: Int)

        var at: Int {
            switch self {
            case .nextFrameStarted(let at), .badMarker(_, let at), .badLength(_, let at), .segmentOverrun(_, let at), .notAMarker(let at):
                return at
            }
        }

        var description: String {
            func hex(_ marker: UInt8) -> String { "FF " + String(marker, radix: 16, uppercase: true) }
            switch self {
            case .nextFrameStarted: return "the next frame's start (FF D8 FF) came before this frame's end (FF D9): the frame was cut"
            case .badMarker(let marker, _): return "marker \(hex(marker)) is not allowed there"
            case .badLength(let marker, _): return "segment \(hex(marker)) has an impossible length"
            case .segmentOverrun(let marker, _): return "segment \(hex(marker)) runs past the next marker or into the next frame"
            case .notAMarker: return "expected a marker (FF xx) between segments"
            }
        }
    }

    /// Index of the current frame's first byte; nil between frames. Bytes before
    /// `start ?? position` are no longer needed.
    private(set) var start: Int?
    /// Next byte to look at.
    private(set) var position = 0
    private var inScan = false
    /// The last segment marker of the current frame (where a resync restarts after it).
    private var lastSegment = 0

    /// The first index still needed: the caller may drop the bytes before it, then `shift`.
    var keepFrom: Int { start ?? max(0, position - 2) }

    /// Tells the splitter that the first `count` bytes of the buffer were dropped.
    mutating func shift(by count: Int) {
        start = start.map { $0 - count }
        position -= count
        lastSegment -= count
    }

    mutating func next(in bytes: [UInt8]) -> Event {
        bytes.withUnsafeBufferPointer { next(in: $0) }
    }

    private mutating func next(in b: UnsafeBufferPointer<UInt8>) -> Event {
        while true {
            guard let start else {
                guard let found = Self.find(start: b, from: position) else {
                    position = max(position, b.count - 2)  // a start may be split across reads
                    return .needMore
                }
                self.start = found
                position = found + 2
                lastSegment = found
                inScan = false
                continue
            }
            guard position + 1 < b.count else { return .needMore }
            if b[position] != 0xFF {
                if inScan {
                    position = Self.find(byte: 0xFF, in: b, from: position + 1) ?? b.count - 1
                    continue
                }
                return lose(start, .notAMarker(at: position), resyncFrom: lastSegment + 2)
            }
            let marker = b[position + 1]
            switch marker {
            case 0xFF:
                position += 1
            case 0x00 where inScan, 0xD0...0xD7 where inScan:
                position += 2
            case 0xD9:
                self.start = nil
                position += 2
                return .frame(start..<position)
            case 0xD8:
                guard position + 2 < b.count else { return .needMore }
                if b[position + 2] == 0xFF { return lose(start, .nextFrameStarted(at: position), resyncFrom: position) }
                return lose(start, .badMarker(marker, at: position), resyncFrom: lastSegment + 2)
            case 0x01 where !inScan:
                position += 2
            case 0xC4, 0xCC, 0xDA...0xDD:
                if let event = segment(marker, frame: start, in: b) { return event }
            case 0xC0...0xCF where !inScan, 0xDE...0xFE where !inScan:
                if let event = segment(marker, frame: start, in: b) { return event }
            default:
                return lose(start, .badMarker(marker, at: position), resyncFrom: lastSegment + 2)
            }
        }
    }

    /// Skips the length-prefixed segment at `position`; nil to go on, else the event to return.
    private mutating func segment(_ marker: UInt8, frame start: Int, in b: UnsafeBufferPointer<UInt8>) -> Event? {
        let at = position
        guard at + 4 < b.count else { return .needMore }
        let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
        guard length >= 2 else { return lose(start, .badLength(marker, at: at), resyncFrom: at + 2) }
        lastSegment = at
        let end = at + 2 + length
        if marker == 0xDA {
            let components = Int(b[at + 4])
            guard (1...4).contains(components), length == 6 + 2 * components else {
                return lose(start, .badLength(marker, at: at), resyncFrom: at + 2)
            }
        }
        // SOS is followed by scan data; every other segment by a marker.
        guard end < b.count else { return .needMore }
        // A start whose FF D8 is the segment's last two bytes ends at `end`: look up to it.
        let body = UnsafeBufferPointer(rebasing: b[..<(end + 1)])
        var overrun = marker != 0xDA && b[end] != 0xFF
        if let inner = Self.find(start: body, from: at + 4) {
            // Only an APPn may hold a JPEG (a thumbnail), and then with its end marker.
            overrun = overrun || !(0xE0...0xEF).contains(marker) || !Self.holdsEnd(body, from: inner + 2)
        }
        if overrun { return lose(start, .segmentOverrun(marker, at: at), resyncFrom: at + 2) }
        position = end
        if marker == 0xDA { inScan = true }
        return nil
    }

    /// At the end of the input: loses the frame being read, if any (returns where it
    /// started), and restarts the search after its last segment's start, where a wrong length
    /// may have hidden whole frames.
    mutating func endOfInput() -> Int? {
        guard let start else { return nil }
        self.start = nil
        position = lastSegment + 2
        return start
    }

    private mutating func lose(_ start: Int, _ damage: Damage, resyncFrom resync: Int) -> Event {
        self.start = nil
        position = resync
        return .lost(start..<damage.at, damage)
    }

    /// The index of the next `FF D8 FF` at or after `from`.
    static func find(start b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = from
        while let ff = find(byte: 0xFF, in: b, from: i) {
            guard ff + 2 < b.count else { return nil }
            if b[ff + 1] == 0xD8 && b[ff + 2] == 0xFF { return ff }
            i = ff + 1
        }
        return nil
    }

    /// Whether `FF D9` occurs at or after `from`.
    static func holdsEnd(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Bool {
        var i = from
        while let ff = find(byte: 0xFF, in: b, from: i), ff + 1 < b.count {
            if b[ff + 1] == 0xD9 { return true }
            i = ff + 1
        }
        return false
    }

    static func find(byte: UInt8, in b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < b.count, let base = b.baseAddress else { return nil }
        guard let hit = memchr(base + from, Int32(byte), b.count - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }
}
