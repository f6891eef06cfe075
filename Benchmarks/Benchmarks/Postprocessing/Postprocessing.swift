// What follows the network: decoding yolov3's three [yolo] heads at 416 into 10 000 candidate
// boxes, mapping them back to a 1280×720 image, darknet's per-class NMS and the final
// thresholding; and NMS alone on those 10 000 candidates. Both report candidate boxes/s.
import Benchmark
import BenchmarkSupport
import YOLO

let benchmarks: @Sendable () -> Void = {
    let rates = [Throughput.boxesPerSecond]

    Benchmark("YOLO decode + NMS, yolov3 416 heads, 10000 candidates",
              configuration: shortConfiguration(rates: rates)) { (benchmark: Benchmark, heads: [SyntheticHead]) in
        let start = ContinuousClock.now
        var candidates: [Candidate] = []
        for head in heads {
            candidates += try YOLODecoder.decode(head.output, gridWidth: head.grid, gridHeight: head.grid, head: head.head,
                                                 networkWidth: 416, networkHeight: 416, threshold: threshold)
        }
        correctBoxes(&candidates, imageWidth: 1280, imageHeight: 720, networkWidth: 416, networkHeight: 416,
                     mapping: .letterbox)
        let kept = detections(from: NMS.perClass(candidates, iouThreshold: 0.45), threshold: threshold)
        let elapsed = start.duration(to: .now)
        benchmark.stopMeasurement()
        blackHole(kept)
        benchmark.measurement(Throughput.boxesPerSecond,
                              Throughput.value(Double(candidateCount), in: elapsed, per: .seconds(1)))
    } setup: {
        try SyntheticHead.yolov3()
    }

    Benchmark("NMS per class, 10000 candidates, 80 classes",
              configuration: shortConfiguration(rates: rates)) { (benchmark: Benchmark, candidates: [Candidate]) in
        let start = ContinuousClock.now
        let kept = NMS.perClass(candidates, iouThreshold: 0.45)
        let elapsed = start.duration(to: .now)
        benchmark.stopMeasurement()
        blackHole(kept)
        benchmark.measurement(Throughput.boxesPerSecond,
                              Throughput.value(Double(candidates.count), in: elapsed, per: .seconds(1)))
    } setup: {
        var candidates: [Candidate] = []
        for head in try SyntheticHead.yolov3() {
            candidates += try YOLODecoder.decode(head.output, gridWidth: head.grid, gridHeight: head.grid, head: head.head,
                                                 networkWidth: 416, networkHeight: 416, threshold: threshold)
        }
        correctBoxes(&candidates, imageWidth: 1280, imageHeight: 720, networkWidth: 416, networkHeight: 416,
                     mapping: .letterbox)
        return candidates
    }
}

/// darknet detect's threshold, for objectness and class probabilities alike.
let threshold: Float = 0.5
let candidateCount = 10_000

/// One yolov3 head's output at 416 (after the [yolo] layer's logistic), made up.
struct SyntheticHead {
    var grid: Int
    var head: YOLOHead
    var output: [Float]

    /// yolov3.cfg's anchors and masks at 416: 13×13 (mask 6,7,8), 26×26 (3,4,5), 52×52 (0,1,2),
    /// 80 classes: 3 × (169 + 676 + 2704) = 10 647 anchor positions. Positions are numbered
    /// across the heads in that order (anchor, then cell); every 16th of the first 647 × 16 has
    /// objectness 0.1 (dropped by the 0.5 threshold), the other 10 000 U(0.55, 1). x, y
    /// U(0, 1); w, h U(−1, 1) (0.37× to 2.7× the anchor). Class scores U(0, 0.3), except
    /// one random class U(0.7, 1) per position and, for one position in four, a second U(0.5, 0.9):
    /// each class then has about 150 boxes above threshold for NMS to sort and compare.
    /// Throws if the decoder does not find exactly 10 000 candidates.
    static func yolov3() throws -> [SyntheticHead] {
        let anchors: [Float] = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]
        let classes = 80
        var random = SeededRandom(seed: 416)
        var position = 0
        var heads: [SyntheticHead] = []
        for (grid, mask) in [(13, [6, 7, 8]), (26, [3, 4, 5]), (52, [0, 1, 2])] {
            let head = YOLOHead(anchors: anchors, mask: mask, classes: classes)
            let plane = grid * grid
            var output = [Float](repeating: 0, count: mask.count * (5 + classes) * plane)
            for n in 0..<mask.count {
                let base = n * (5 + classes) * plane
                for cell in 0..<plane {
                    func set(_ entry: Int, _ value: Float) { output[base + entry * plane + cell] = value }
                    set(0, random.uniform(0, 1))
                    set(1, random.uniform(0, 1))
                    set(2, random.uniform(-1, 1))
                    set(3, random.uniform(-1, 1))
                    let dropped = position % 16 == 0 && position < 647 * 16
                    set(4, dropped ? 0.1 : random.uniform(0.55, 1))
                    for k in 0..<classes { set(5 + k, random.uniform(0, 0.3)) }
                    set(5 + random.below(classes), random.uniform(0.7, 1))
                    if random.below(4) == 0 { set(5 + random.below(classes), random.uniform(0.5, 0.9)) }
                    position += 1
                }
            }
            heads.append(SyntheticHead(grid: grid, head: head, output: output))
        }
        var count = 0
        for head in heads {
            count += try YOLODecoder.decode(head.output, gridWidth: head.grid, gridHeight: head.grid, head: head.head,
                                            networkWidth: 416, networkHeight: 416, threshold: threshold).count
        }
        guard count == candidateCount else { throw CandidateCountMismatch(found: count) }
        return heads
    }
}

struct CandidateCountMismatch: Error, CustomStringConvertible {
    var found: Int
    var description: String { "the synthetic heads decode to \(found) candidates, not \(candidateCount)" }
}
