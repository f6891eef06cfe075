import TestSupport
import XCTest
@testable import YOLO

/// `NMSIndex` only skips work: every NMS that uses it must give darknet's all-pairs answer bit
/// for bit, whatever the boxes, scores and threshold.
final class NMSIndexTests: XCTestCase {
    /// Boxes of every kind the index treats differently: ordinary ones on a coarse grid (equal and
    /// touching edges), every size level from 2^-20 to wider than the image, zero, negative,
    /// NaN and infinite fields, tiny boxes far out (edges not within 1/64 of the size),
    /// subnormal areas.
    func randomBox(_ generator: inout SplitMix64, odd: Bool) -> BoundingBox {
        func unit() -> Float { generator.nextUnit() }
        var x = (unit() * 64).rounded() / 64
        var y = (unit() * 64).rounded() / 64
        var width = unit() * 0.3, height = unit() * 0.3
        switch generator.next() % 10 {
        case 0: width = 0
        case 1: width = unit() * 3; height = unit() * 0.01
        case 2: width = 0.015625 * Float(generator.next() % 8); height = 0.015625 * Float(generator.next() % 8)
        case 3:
            let scale = Float(sign: .plus, exponent: -Int(generator.next() % 21), significand: 1)
            width *= scale; height *= scale
        default: break
        }
        if odd {
            switch generator.next() % 12 {
            case 0: width = -width
            case 1: x = .nan
            case 2: height = .infinity
            case 3: x = 1_000_000; width = 0.01  // edges are 1/16 apart: not conditioned
            case 4: width = 1e-30; height = 1e-20  // area underflows
            case 5: y = -.infinity
            case 6: width = .nan
            case 7: width = 3e20; height = 4e19  // area overflows to +inf
            case 8: x = 8.7e15; width = 1.8e15  // a decoder fuzz finding's kind of box
            default: break
            }
        }
        return BoundingBox(x: x, y: y, width: width, height: height)
    }

    func randomScores(_ generator: inout SplitMix64, classes: Int, nan: Bool) -> [Float] {
        (0..<classes).map { _ -> Float in
            switch generator.next() % 9 {
            case 0: return 0
            case 1: return -0.0
            case 2: return nan ? .nan : 0.5
            case 3: return 0.5
            default: return generator.nextUnit()
            }
        }
    }

    let thresholds: [Float] = [0.45, 0, 1, 0.5, 0.01, 0.3, 1.5, Float(bitPattern: 7573), -0.5, .nan]

    /// 80 random trials; a debug build (plain `swift test`, the fast tier) runs the first 10 of
    /// them (odd boxes and NaN scores among them): all 80 take close to a minute there.
    func testEveryNMSEqualsAllPairs() {
        #if DEBUG
        let trials = 10
        #else
        let trials = 80
        #endif
        var generator = SplitMix64(seed: 29)
        for trial in 0..<trials {
            let count = 1 + Int(generator.next() % 400)
            let classes = 1 + Int(generator.next() % 4)
            let odd = trial % 3 == 0
            var candidates: [Candidate] = []
            for _ in 0..<count {
                var box = randomBox(&generator, odd: odd && generator.next() % 4 == 0)
                if !candidates.isEmpty && generator.next() % 6 == 0 {  // duplicates, and edges equal with other fields not
                    box = candidates[Int(generator.next() % UInt64(candidates.count))].box
                    if generator.next() % 2 == 0 { box.x = box.x.nextUp }
                }
                let objectness: Float = generator.next() % 10 == 0 ? 0 : (trial % 5 == 0 && generator.next() % 7 == 0 ? .nan : 1)
                candidates.append(Candidate(box: box, objectness: objectness,
                                            probabilities: randomScores(&generator, classes: classes, nan: trial % 5 == 0)))
            }
            for threshold in thresholds {
                let context = "trial \(trial), threshold \(threshold)"
                assertSame(NMS.perClass(candidates, iouThreshold: threshold, indexed: true),
                           NMS.perClass(candidates, iouThreshold: threshold, indexed: false), context)
                assertSame(NMS.byObjectness(candidates, iouThreshold: threshold, indexed: true),
                           NMS.byObjectness(candidates, iouThreshold: threshold, indexed: false), context)
                assertSame(NMS.classAgnostic(candidates, iouThreshold: threshold, indexed: true),
                           NMS.classAgnostic(candidates, iouThreshold: threshold, indexed: false), context)
                assertSame(NMS.diou(candidates, iouThreshold: threshold, beta: 0.6, indexed: true),
                           NMS.diou(candidates, iouThreshold: threshold, beta: 0.6, indexed: false), context)
                let detections = candidates.enumerated().map { i, c in
                    Detection(classId: i % 3, confidence: c.probabilities[0], box: c.box)
                }
                let fast = NMS.greedy(detections, iouThreshold: threshold, indexed: true)
                let slow = NMS.greedy(detections, iouThreshold: threshold, indexed: false)
                XCTAssertEqual(fast.map(\.box.x.bitPattern), slow.map(\.box.x.bitPattern), context)
                XCTAssertEqual(fast.map(\.confidence.bitPattern), slow.map(\.confidence.bitPattern), context)
            }
        }
    }

    /// The suppression must actually happen in these trials, or the equality above proves little.
    func testTheRandomTrialsSuppress() {
        var generator = SplitMix64(seed: 29)
        var candidates: [Candidate] = []
        for _ in 0..<300 {
            candidates.append(Candidate(box: randomBox(&generator, odd: false), objectness: 1,
                                        probabilities: randomScores(&generator, classes: 1, nan: false)))
        }
        let zeroed = NMS.perClass(candidates, iouThreshold: 0.45).filter { $0.probabilities[0] == 0 }.count
        let zeroBefore = candidates.filter { $0.probabilities[0] == 0 }.count
        XCTAssertGreaterThan(zeroed, zeroBefore + 10)
    }

    func assertSame(_ fast: [Candidate], _ slow: [Candidate], _ context: String, line: UInt = #line) {
        XCTAssertEqual(fast.count, slow.count, context, line: line)
        for (f, s) in zip(fast, slow) {
            XCTAssertEqual([f.box.x, f.box.y, f.box.width, f.box.height].map(\.bitPattern),
                           [s.box.x, s.box.y, s.box.width, s.box.height].map(\.bitPattern), context, line: line)
            XCTAssertEqual(f.objectness.bitPattern, s.objectness.bitPattern, context, line: line)
            XCTAssertEqual(f.probabilities.map(\.bitPattern), s.probabilities.map(\.bitPattern), context, line: line)
        }
    }

    /// The index returns every kept box whose darknet IoU with the query passes, for queries of
    /// every kind against kept boxes of every kind.
    func testQueriesFindEveryPassingKeptBox() {
        var generator = SplitMix64(seed: 5)
        for trial in 0..<40 {
            let boxes = (0..<300).map { _ in randomBox(&generator, odd: trial % 2 == 0 && generator.next() % 3 == 0) }
            for threshold: Float in [0, 0.01, 0.45, 0.9] {
                guard var index = NMSIndex(boxes, threshold: threshold) else { return XCTFail("threshold \(threshold)") }
                for k in 0..<150 { index.insert(k) }
                for q in 150..<300 {
                    var visited = Set<Int>()
                    index.forEachCandidate(of: q) { visited.insert($0); return false }
                    for k in 0..<150 where darknetIoU(boxes[k], boxes[q]) > threshold {
                        XCTAssertTrue(visited.contains(k), "trial \(trial), threshold \(threshold): \(boxes[k]) passes against \(boxes[q]) but was skipped")
                    }
                }
            }
        }
        XCTAssertNil(NMSIndex([], threshold: -0.1))
        XCTAssertNil(NMSIndex([], threshold: .nan))
    }

    /// The inputs that made darknet's loop (and the x-sweep before this index) quadratic: 20 000
    /// boxes in one column, apart in y, all kept; 20 000 on a grid; wide and tall strips crossing;
    /// and what the decoder fuzzer found: thousands of equal boxes whose areas overflow (none
    /// can pass), and equal boxes far from the origin. Counts the kept boxes each query visits
    /// (work, not time), at darknet's threshold, at 0 and at a subnormal one.
    func testWorkStaysLinearOnCrowds() {
        let n = 20_000
        let column = (0..<n).map { i in BoundingBox(x: 0.5, y: Float(i) * 0.001, width: 0.5, height: 0.0009) }
        let grid = (0..<n).map { i in
            BoundingBox(x: Float(i % 141) * 0.01, y: Float(i / 141) * 0.01, width: 0.015, height: 0.015)
        }
        let crosses = (0..<n).map { i in  // wide and tall strips crossing: IoU small, all kept
            i % 2 == 0 ? BoundingBox(x: 0.5, y: Float(i) * 5e-5, width: 1, height: 4e-5)
                       : BoundingBox(x: Float(i) * 5e-5, y: 0.5, width: 4e-5, height: 1)
        }
        let overflowing = (0..<n).map { i in
            BoundingBox(x: 8.735_171_6e15, y: 7.536_226_6e15, width: i % 2 == 0 ? 1.846_538e35 : 4.247_037_5e35,
                        height: i % 2 == 0 ? 6.311_449e31 : 7.790_082e33)
        }
        let farOut = (0..<n).map { i in BoundingBox(x: 1e6, y: 1e6, width: 0.01, height: i % 3 == 0 ? 0.02 : 0.01) }
        for (name, boxes) in [("column", column), ("grid", grid), ("crosses", crosses), ("overflowing", overflowing), ("far out", farOut)] {
            for threshold: Float in [0.45, 0, Float(bitPattern: 7573)] {
                for measure: NMSIndex.Measure in [.darknetIoU, .distanceIoU] {
                    guard var index = NMSIndex(boxes, threshold: threshold, measure: measure) else { return XCTFail() }
                    var visits = 0
                    for q in boxes.indices {
                        var hit = false
                        index.forEachCandidate(of: q) { k in
                            visits += 1
                            hit = darknetIoU(boxes[k], boxes[q]) > threshold
                            return hit
                        }
                        if !hit { index.insert(q) }
                    }
                    XCTAssertLessThan(visits, 20 * boxes.count, "\(name), \(threshold), \(measure): \(visits) kept boxes visited for \(boxes.count) queries")
                }
            }
        }
    }
}
