import TestSupport
@testable import darknet_swift
import Foundation
import XCTest

/// Ways to break one JPEG frame, as a camera link or a fault tester does (issue #31, item 12).
enum Corruption {
    /// `FF E1` and a length running past the frame's end, written into the scan data.
    static func fakeMarkerInScan(_ frame: [UInt8]) -> [UInt8] {
        var out = frame
        let middle = scanStart(frame) + (frame.count - scanStart(frame)) / 2
        out.replaceSubrange(middle..<middle + 4, with: [0xFF, 0xE1, 0xF0, 0x00])
        return out
    }

    /// The frame cut inside its scan data (no EOI).
    static func cutInScan(_ frame: [UInt8]) -> [UInt8] {
        Array(frame[..<(scanStart(frame) + (frame.count - scanStart(frame)) / 3)])
    }

    /// The frame cut inside its first table segment after APP0.
    static func cutInHeader(_ frame: [UInt8]) -> [UInt8] { Array(frame[..<30]) }

    /// One to four bytes overwritten, a few bytes inserted or removed, or the tail cut, after
    /// the start marker `FF D8 FF` (a frame without it cannot be told from the padding some
    /// cameras put between frames, so it is skipped without a number).
    static func random(_ frame: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var out = frame
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                out[Int.random(in: 3..<out.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
        case 1:
            let at = Int.random(in: 3..<out.count, using: &generator)
            out.insert(contentsOf: (0..<Int.random(in: 1...8, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: at)
        case 2:
            let at = Int.random(in: 3..<out.count - 8, using: &generator)
            out.removeSubrange(at..<at + Int.random(in: 1...8, using: &generator))
        default:
            out.removeSubrange(Int.random(in: 3..<out.count, using: &generator)...)
        }
        return out
    }

    /// The index just after the SOS segment.
    static func scanStart(_ frame: [UInt8]) -> Int {
        let sos = (0..<frame.count - 1).first { frame[$0] == 0xFF && frame[$0 + 1] == 0xDA }!
        return sos + 2 + (Int(frame[sos + 2]) << 8 | Int(frame[sos + 3]))
    }
}

final class FrameReaderTests: XCTestCase {
    private var folder: URL?

    /// What a `FrameReader` makes of `bytes` (read from a file): "N: <bytes>" for a frame,
    /// "N: lost: <error>" for a lost one, "error: <error>" for the error that ended the stream.
    func read(_ bytes: [UInt8], maxFrameBytes: Int = 1 << 20) throws -> (items: [String], frames: [Int: [UInt8]]) {
        if folder == nil { folder = try CLI.temporaryFolder(self) }
        let url = folder!.appendingPathComponent("stream.mjpeg")
        try Data(bytes).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var reader = FrameReader(kind: .mjpeg, maxFrameBytes: maxFrameBytes, descriptor: handle.fileDescriptor)
        var items: [String] = [], frames: [Int: [UInt8]] = [:]
        do {
            while let item = try reader.next() {
                switch item {
                case .frame(let frame):
                    items.append("\(frame.index): \(frame.bytes.count) bytes")
                    frames[frame.index] = frame.bytes
                case .lost(let index, let error): items.append("\(index): lost: \(error)")
                }
            }
        } catch {
            items.append("error: \(error)")
        }
        return (items, frames)
    }

    func testCorruptFramesCostThemselvesOnly() throws {
        let clean = try StreamFrames.dog(count: 3, step: 8, scale: 0.25)
        let cases: [(String, [UInt8])] = [
            ("fake APPn in the scan", Corruption.fakeMarkerInScan(clean[1])),
            ("cut in the scan", Corruption.cutInScan(clean[1])),
            ("cut in the header", Corruption.cutInHeader(clean[1])),
        ]
        for (name, broken) in cases {
            let (items, frames) = try read(clean[0] + broken + clean[2])
            XCTAssertEqual(items.count, 3, "\(name): \(items)")
            XCTAssertTrue(items[1].hasPrefix("1: lost: frame 1: "), "\(name): \(items)")
            XCTAssertTrue(frames[0] == clean[0], name)
            XCTAssertTrue(frames[2] == clean[2], "\(name): the next frame is whole and keeps its number")
        }
        // The old splitter's failure: the fake marker's length ran into the next frames.
        let fake = try read(clean[0] + Corruption.fakeMarkerInScan(clean[1]) + clean[2] + clean[0])
        XCTAssertEqual(fake.frames.keys.sorted(), [0, 2, 3], "\(fake.items)")
    }

    /// A thousand seeded corruptions of the middle frame: the frames around it always come
    /// out whole with their numbers (the broken one is lost, or decodes as whatever it became).
    func testRandomCorruptionsNeverReachTheNextFrame() throws {
        let clean = try StreamFrames.dog(count: 3, step: 8, scale: 0.25)
        var generator = SplitMix64(state: 31)
        for trial in 0..<(Int(ProcessInfo.processInfo.environment["TRIALS"] ?? "") ?? 1000) {
            let broken = Corruption.random(clean[1], using: &generator)
            let (items, frames) = try read(clean[0] + broken + clean[2])
            XCTAssertEqual(items.count, 3, "trial \(trial): \(items)")
            XCTAssertTrue(frames[0] == clean[0], "trial \(trial): \(items)")
            XCTAssertTrue(frames[2] == clean[2], "trial \(trial): \(items)")
            if frames[2] != clean[2] { try Data(clean[0] + broken + clean[2]).write(to: URL(fileURLWithPath: "/tmp/trial-\(trial).mjpeg")) }
        }
    }

    func testCutLastFrameIsLostWithItsNumberAndJunkBetweenFramesIsSkipped() throws {
        let clean = try StreamFrames.dog(count: 2, scale: 0.25)
        let (items, frames) = try read([0, 1, 2, 0xFF] + clean[0] + [0xFF, 0xD8, 0, 0, 0xFF] + clean[1] + Array(clean[0].prefix(500)))
        XCTAssertEqual(items.count, 3, "\(items)")
        XCTAssertTrue(frames[0] == clean[0])
        XCTAssertTrue(frames[1] == clean[1])
        XCTAssertTrue(items[2].hasPrefix("2: lost: frame 2: the stream ended inside this frame (500 bytes from stream byte"), items[2])
    }

    /// Inputs built to make a resynchronising splitter rescan or buffer without end: a start
    /// and a 64 KiB segment length every 8 bytes, and a scan that never ends. Each finishes,
    /// the first with one lost frame per start, the second stopped at --max-frame-bytes.
    func testAdversarialInputsAreBounded() throws {
        let starts = Array([[UInt8]](repeating: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x00, 0x00], count: 50_000).joined())
        let (items, _) = try read(starts)
        XCTAssertEqual(items.count, 50_000, "\(items.suffix(3))")
        XCTAssertTrue(items.allSatisfy { $0.contains(": lost: ") })
        let endless = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00] + [UInt8](repeating: 0x11, count: 3 << 20)
        let stopped = try read(endless, maxFrameBytes: 1 << 20)
        XCTAssertEqual(stopped.items.count, 2, "\(stopped.items)")
        XCTAssertTrue(stopped.items[1].hasPrefix("error: frame 0 (stream byte 0): larger than --max-frame-bytes 1048576"), "\(stopped.items)")
    }
}
