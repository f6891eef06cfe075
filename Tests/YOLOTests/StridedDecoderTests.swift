import TestSupport
import XCTest
@testable import YOLO

/// The strided / typed / raw-logit decoder. Hand-built head: grid 3 wide x 2 high, 2 anchor
/// slots, 3 classes (16 channels), network 64 x 32.
final class StridedDecoderTests: XCTestCase {
    let head = YOLOHead(anchors: [10, 14, 23, 27, 37, 58], mask: [2, 0], classes: 3)
    let channels = 16, gridHeight = 2, gridWidth = 3

    /// Deterministic NCHW values: objectness planes (channels 4 and 12) either 0.7...0.95 or
    /// 0.05...0.2, far from the 0.4 threshold, so rounding to Float16 cannot change which slots
    /// are kept; other entries in -1...1 (w, h) or 0...1.
    func makeNCHW() -> [Float] {
        var generator = SplitMix64(seed: 11)
        var values = [Float](repeating: 0, count: channels * gridHeight * gridWidth)
        for c in 0..<channels {
            for i in 0..<(gridHeight * gridWidth) {
                let u = generator.nextUnit()
                let entry = c % 8
                switch entry {
                case 4: values[c * 6 + i] = i % 2 == 0 ? 0.7 + 0.25 * u : 0.05 + 0.15 * u
                case 2, 3: values[c * 6 + i] = 2 * u - 1
                default: values[c * 6 + i] = u
                }
            }
        }
        return values
    }

    /// The same tensor in NHWC order.
    func permutedToNHWC(_ nchw: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: nchw.count)
        for c in 0..<channels {
            for r in 0..<gridHeight {
                for w in 0..<gridWidth { out[(r * gridWidth + w) * channels + c] = nchw[(c * gridHeight + r) * gridWidth + w] }
            }
        }
        return out
    }

    func decode<E: TensorElement>(_ values: [E], _ tensor: TensorDescriptor, raw: Bool = false,
                                  head: DetectionHead? = nil) throws -> [Candidate] {
        try YOLODecoder.decode(values, tensor: tensor, head: head ?? .yolo(self.head), networkWidth: 64,
                               networkHeight: 32, threshold: 0.4, options: DecodeOptions(rawLogits: raw))
    }

    func testNCHWFloatMatchesTheDarknetEntryPointBitForBit() throws {
        let values = makeNCHW()
        let old = try YOLODecoder.decode(values, gridWidth: 3, gridHeight: 2, head: head, networkWidth: 64,
                                         networkHeight: 32, threshold: 0.4)
        XCTAssertEqual(old.count, 6, "every other cell of both anchors is above the threshold")
        XCTAssertEqual(try decode(values, .nchw(channels: 16, height: 2, width: 3)), old)
    }

    func testNCHWNHWCAndCustomStridesGiveIdenticalCandidates() throws {
        let nchw = makeNCHW()
        let expected = try decode(nchw, .nchw(channels: 16, height: 2, width: 3))
        // NHWC copy.
        XCTAssertEqual(try decode(permutedToNHWC(nchw), .nhwc(channels: 16, height: 2, width: 3)), expected)
        XCTAssertEqual(try decode(permutedToNHWC(nchw), TensorDescriptor(shape: [1, 2, 3, 16], strides: [96, 48, 16, 1], order: .nhwc)), expected)
        // MLMultiArray-style padded rows: rows of 5 elements (3 used), 4 spare elements first.
        var padded = [Float](repeating: .nan, count: 4 + 16 * 2 * 5)
        for c in 0..<16 { for r in 0..<2 { for w in 0..<3 { padded[4 + c * 10 + r * 5 + w] = nchw[(c * 2 + r) * 3 + w] } } }
        var descriptor = try TensorDescriptor(shape: [1, 16, 2, 3], strides: [160, 10, 5, 1])
        descriptor.offset = 4
        XCTAssertEqual(try decode(padded, descriptor), expected)
        // Column-major planes (W outer, H inner).
        var transposed = [Float](repeating: 0, count: nchw.count)
        for c in 0..<16 { for r in 0..<2 { for w in 0..<3 { transposed[c * 6 + w * 2 + r] = nchw[(c * 2 + r) * 3 + w] } } }
        XCTAssertEqual(try decode(transposed, TensorDescriptor(channels: 16, height: 2, width: 3,
                                                               channelStride: 6, rowStride: 1, columnStride: 2)), expected)
    }

    func testDoubleTensorMatchesFloat() throws {
        let values = makeNCHW()
        // Every Float converts to Double and back exactly.
        XCTAssertEqual(try decode(values.map(Double.init), .nchw(channels: 16, height: 2, width: 3)),
                       try decode(values, .nchw(channels: 16, height: 2, width: 3)))
    }

    #if !(os(macOS) && arch(x86_64))
    /// Float16 keeps 11 significant bits: each value moves by at most 2^-12 relative (<= 2^-12
    /// absolute for values in -1...1). Then x, y (= (col + v)/grid) move by <= 2^-12/2, w and h
    /// (= e^v·anchor/net) by <= e^(2^-12) − 1 ~ 2.5e-4 relative, probabilities (obj x score) by
    /// <= 2·2^-12 ~ 4.9e-4 relative. Tolerance: 5e-4 absolute on x, y and probabilities, 3e-4
    /// relative on w, h.
    func testFloat16MatchesFloatWithinTolerance() throws {
        let values = makeNCHW()
        let reference = try decode(values, .nchw(channels: 16, height: 2, width: 3))
        let half = try decode(values.map { Float16($0) }, .nchw(channels: 16, height: 2, width: 3))
        XCTAssertEqual(half.count, reference.count)
        for (a, b) in zip(half, reference) {
            XCTAssertEqual(a.box.x, b.box.x, accuracy: 5e-4)
            XCTAssertEqual(a.box.y, b.box.y, accuracy: 5e-4)
            XCTAssertEqual(a.box.width, b.box.width, accuracy: 3e-4 * b.box.width)
            XCTAssertEqual(a.box.height, b.box.height, accuracy: 3e-4 * b.box.height)
            XCTAssertEqual(a.objectness, b.objectness, accuracy: 5e-4)
            for (p, q) in zip(a.probabilities, b.probabilities) { XCTAssertEqual(p, q, accuracy: 5e-4) }
        }
    }
    #endif

    /// darknet's activation done by hand (logistic on x, y, objectness, classes) then the
    /// post-activation decode equals the raw-logit decode exactly.
    func testRawLogitsEqualsPostActivation() throws {
        let raw = makeNCHW().map { $0 * 6 - 3 }
        var activated = raw
        for c in 0..<16 where c % 8 != 2 && c % 8 != 3 {
            for i in 0..<6 { activated[c * 6 + i] = YOLODecoder.logistic(raw[c * 6 + i]) }
        }
        let tensor = TensorDescriptor.nchw(channels: 16, height: 2, width: 3)
        let post = try decode(activated, tensor)
        XCTAssertFalse(post.isEmpty)
        XCTAssertEqual(try decode(raw, tensor, raw: true), post)
        XCTAssertEqual(try decode(permutedToNHWC(raw), .nhwc(channels: 16, height: 2, width: 3), raw: true), post)
    }

    /// One cell, one anchor (16, 8) px, 1 class, grid 4 x 4, network 64 x 32, raw logits.
    func oneSlot(_ values: [Float], head: YOLOHead, raw: Bool = true, col: Int = 1) throws -> Candidate? {
        var tensor = [Float](repeating: -30, count: 6 * 16)   // logistic(-30) ~ 1e-13: never kept
        for (entry, v) in values.enumerated() { tensor[entry * 16 + col] = v }
        return try YOLODecoder.decode(tensor, tensor: .nchw(channels: 6, height: 4, width: 4), head: .yolo(head),
                                      networkWidth: 64, networkHeight: 32, threshold: 0.5,
                                      options: DecodeOptions(rawLogits: raw)).first
    }

    func testScaleXYOnHandWorkedNumbers() throws {
        let scaled = YOLOHead(anchors: [16, 8], mask: [0], classes: 1, scaleXY: 2, newCoords: false)
        // tx = 20: logistic = 1 in Float (1 − 2e-9 rounds to 1); 1·2 − (2 − 1)/2 = 1.5, so
        // x = (col 1 + 1.5)/4 = 0.625: past the cell's right edge (0.5), as scale_x_y allows.
        // ty = -20: logistic ~ 2e-9; 2e-9·2 − 0.5 rounds to −0.5: y = (row 0 − 0.5)/4 = −0.125.
        // tw = th = 0: w = e^0·16/64 = 0.25, h = 8/32 = 0.25. Objectness logit 20 -> 1, class 20 -> 1.
        let c = try XCTUnwrap(oneSlot([20, -20, 0, 0, 20, 20], head: scaled))
        XCTAssertEqual(c.box, BoundingBox(x: 0.625, y: -0.125, width: 0.25, height: 0.25))
        // tx = 0: logistic 0.5; 0.5·2 − 0.5 = 0.5: the centre of the cell, as without scaling.
        XCTAssertEqual(try XCTUnwrap(oneSlot([0, 0, 0, 0, 20, 20], head: scaled)).box.x, 0.375)
        // scale 1.05 (yolov4.cfg): x = 0.75·1.05 − 0.025 = 0.7625 for logistic(tx) = 0.75, i.e.
        // tx = ln 3; (1 + 0.7625)/4 = 0.440625.
        let v4 = YOLOHead(anchors: [16, 8], mask: [0], classes: 1, scaleXY: 1.05, newCoords: false)
        XCTAssertEqual(try XCTUnwrap(oneSlot([1.0986123, 0, 0, 0, 20, 20], head: v4)).box.x, 0.440625, accuracy: 1e-6)
        // Post-activation input is darknet's layer output, scale already applied: x is used as is.
        let post = try XCTUnwrap(oneSlot([1.5, 0.5, 0, 0, 1, 1], head: scaled, raw: false))
        XCTAssertEqual(post.box.x, 0.625)
        // The darknet-entry-point decode delegates such heads to the general decoder.
        var tensor = [Float](repeating: 0, count: 6 * 16)
        for (entry, v) in [Float(1.5), 0.5, 0, 0, 1, 1].enumerated() { tensor[entry * 16 + 1] = v }
        XCTAssertEqual(try YOLODecoder.decode(tensor, gridWidth: 4, gridHeight: 4, head: scaled, networkWidth: 64,
                                              networkHeight: 32, threshold: 0.5), [post])
    }

    func testNewCoordsOnHandWorkedNumbers() throws {
        let csp = YOLOHead(anchors: [16, 8], mask: [0], classes: 1, scaleXY: 1, newCoords: true)
        // Post-activation (values already logistic): w = tw·tw·4·16/64: tw = 0.5 -> 0.25 (the
        // anchor), tw = 0.75 -> 2.25·16/64 = 0.5625; h = th·th·4·8/32: th = 1 -> 1 (the 4x cap).
        // x = (1 + 0.25)/4 = 0.3125, y = (0 + 0.5)/4 = 0.125.
        let c = try XCTUnwrap(oneSlot([0.25, 0.5, 0.75, 1, 0.9, 0.9], head: csp, raw: false))
        XCTAssertEqual(c.box, BoundingBox(x: 0.3125, y: 0.125, width: 0.5625, height: 1))
        XCTAssertEqual(c.probabilities, [Float(0.9) * 0.9])
        // Raw logits: logistic on every entry, w and h included: tw = th = 0 -> 0.5 -> the anchor.
        let raw = try XCTUnwrap(oneSlot([0, 0, 0, 0, 20, 20], head: csp))
        XCTAssertEqual(raw.box, BoundingBox(x: 0.375, y: 0.125, width: 0.25, height: 0.25))
    }

    func testRegionHeadOnHandWorkedNumbers() throws {
        // Grid 2 x 2, one anchor (1.5, 2) grid cells, 3 classes: [region] boxes are
        // ((col + x)/2, (row + y)/2, e^tw·1.5/2, e^th·2/2) — get_region_box divides by the grid.
        let region = RegionHead(anchors: [1.5, 2], classes: 3)
        var raw = [Float](repeating: -30, count: 8 * 4)
        let cell = 3  // row 1, col 1
        for (entry, v) in [Float(0), 0, 0, 0, 0, 2, 0, 0].enumerated() { raw[entry * 4 + cell] = v }
        let candidates = try YOLODecoder.decode(raw, tensor: .nchw(channels: 8, height: 2, width: 2), head: .region(region),
                                                networkWidth: 416, networkHeight: 416, threshold: 0.2,
                                                options: DecodeOptions(rawLogits: true))
        // Other cells: objectness logit -30 (and their softmax classes are irrelevant).
        XCTAssertEqual(candidates.count, 1)
        let c = try XCTUnwrap(candidates.first)
        XCTAssertEqual(c.box, BoundingBox(x: 0.75, y: 0.75, width: 0.75, height: 1))
        XCTAssertEqual(c.objectness, 0.5)
        // softmax([2, 0, 0]) = [e²/(e² + 2), 1/(e² + 2), ...] = [0.78699, 0.10650, 0.10650];
        // times objectness 0.5: 0.39349 kept, 0.05325 not above 0.2.
        XCTAssertEqual(c.probabilities[0], 0.393496, accuracy: 1e-5)
        XCTAssertEqual(Array(c.probabilities[1...]), [0, 0])
    }

    /// `keepsEveryRegionSlot`: pjreddie's get_region_detections keeps the other three slots,
    /// objectness 0 and no probability, in their places (anchor, then cells); `[yolo]` heads
    /// are unaffected.
    func testEveryRegionSlotIsKeptWhenAsked() throws {
        let region = RegionHead(anchors: [1.5, 2], classes: 3)
        var raw = [Float](repeating: -30, count: 8 * 4)
        for (entry, v) in [Float(0), 0, 0, 0, 0, 2, 0, 0].enumerated() { raw[entry * 4 + 3] = v }
        let all = try YOLODecoder.decode(raw, tensor: .nchw(channels: 8, height: 2, width: 2), head: .region(region),
                                         networkWidth: 416, networkHeight: 416, threshold: 0.2,
                                         options: DecodeOptions(rawLogits: true, keepsEveryRegionSlot: true))
        XCTAssertEqual(all.map(\.objectness), [0, 0, 0, 0.5])
        XCTAssertEqual(all[0].probabilities, [0, 0, 0])
        XCTAssertEqual(all[3].box, BoundingBox(x: 0.75, y: 0.75, width: 0.75, height: 1))
    }

    func testNormalizedConfidenceIsASoftmaxOfTheClassLogits() throws {
        let head = YOLOHead(anchors: [16, 8], mask: [0], classes: 2)
        // Class logits 1 and 1 + ln 3: softmax = [1/4, 3/4]; objectness logistic(20) = 1.
        var tensor = [Float](repeating: -30, count: 7)
        for (entry, v) in [Float(0), 0, 0, 0, 20, 1, 2.0986123].enumerated() { tensor[entry] = v }
        let options = DecodeOptions(rawLogits: true, normalizedConfidence: true)
        let c = try XCTUnwrap(YOLODecoder.decode(tensor, tensor: .nchw(channels: 7, height: 1, width: 1), head: .yolo(head),
                                                 networkWidth: 64, networkHeight: 32, threshold: 0.1, options: options).first)
        XCTAssertEqual(c.probabilities[0], 0.25, accuracy: 1e-6)
        XCTAssertEqual(c.probabilities[1], 0.75, accuracy: 1e-6)
        // The same from activated scores (logits recovered as ln(p / (1 − p))).
        var activated = tensor
        activated[4] = 1
        activated[5] = YOLODecoder.logistic(1)
        activated[6] = YOLODecoder.logistic(2.0986123)
        let post = try XCTUnwrap(YOLODecoder.decode(activated, tensor: .nchw(channels: 7, height: 1, width: 1), head: .yolo(head),
                                                    networkWidth: 64, networkHeight: 32, threshold: 0.1,
                                                    options: DecodeOptions(normalizedConfidence: true)).first)
        XCTAssertEqual(post.probabilities[0], 0.25, accuracy: 1e-5)
        XCTAssertEqual(post.probabilities[1], 0.75, accuracy: 1e-5)
    }

    func testShapeErrors() throws {
        let values = makeNCHW()
        func error(_ body: () throws -> [Candidate]) -> DecodeError? {
            do { _ = try body(); return nil } catch { return error as? DecodeError }
        }
        XCTAssertEqual(error { try decode(values, .nchw(channels: 15, height: 2, width: 3)) },
                       .channelMismatch(expected: 16, actual: 15))
        XCTAssertEqual(error { try decode(values, .nchw(channels: 16, height: 3, width: 3)) },
                       .outOfBounds(lastIndex: 143, bufferCount: 96))
        XCTAssertEqual(error { try decode(values, .nchw(channels: 16, height: 0, width: 3)) },
                       .nonPositiveDimension(channels: 16, height: 0, width: 3))
        XCTAssertEqual(error { try decode(values, TensorDescriptor(channels: 16, height: 2, width: 3, channelStride: -6, rowStride: 3, columnStride: 1)) },
                       .negativeStride(channelStride: -6, rowStride: 3, columnStride: 1, offset: 0))
        XCTAssertEqual(error { try decode(values, TensorDescriptor(channels: 16, height: 2, width: 3, channelStride: .max, rowStride: 3, columnStride: 1)) },
                       .outOfBounds(lastIndex: .max, bufferCount: 96))
        let bad = YOLOHead(anchors: [1, 2, 3], mask: [0], classes: 1)
        XCTAssertEqual(error { try decode(values, .nchw(channels: 16, height: 2, width: 3), head: .yolo(bad)) },
                       .head(.oddAnchorCount(3)))
        XCTAssertEqual(error { try decode(values, .nchw(channels: 16, height: 2, width: 3), head: .region(RegionHead(anchors: [], classes: 3))) },
                       .head(.emptyMask))
        XCTAssertEqual(error {
            try YOLODecoder.decode(values, tensor: .nchw(channels: 16, height: 2, width: 3), head: .yolo(head),
                                   networkWidth: 0, networkHeight: 32, threshold: 0.4)
        }, .head(.nonPositiveNetworkSize(width: 0, height: 32)))
        // Zero strides (one broadcast value) on a grid whose cell count overflows Int: an error, not a trap.
        XCTAssertEqual(error { try decode(values, TensorDescriptor(channels: 16, height: .max, width: 2, channelStride: 0, rowStride: 0, columnStride: 0)) },
                       .head(.shapeTooLarge(gridWidth: 2, gridHeight: .max, maskCount: 2, classes: 3)))
        // Zero strides on a grid that fits Int but would take 2·2^40 slots to walk (a hang, found by
        // reasoning after the fuzz harness's huge-size bytes): refused, more elements than the buffer.
        XCTAssertEqual(error { try decode(values, TensorDescriptor(channels: 16, height: 1 << 40, width: 1, channelStride: 0, rowStride: 0, columnStride: 0)) },
                       .head(.shapeTooLarge(gridWidth: 1, gridHeight: 1 << 40, maskCount: 2, classes: 3)))
        XCTAssertFalse(DecodeError.channelMismatch(expected: 16, actual: 15).description.isEmpty)
    }
}
