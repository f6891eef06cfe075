@testable import Kernels
import Foundation
import XCTest

/// The checks every threaded product shares (`GEMM.multiplyPacked`, `GEMM.multiplyDirect`): on
/// one worker the naive product's values (`expected`, `m × n`) and the epilogue once on every
/// element after its product; the same bits on 2, 3 and 8 workers; each of `segments` equal
/// runs of columns the bits it gets alone. `multiply(threads, b, width, segments, c, epilogue)`
/// runs the test's weights times `b` (`k × width`, row-major) into `c` (`m × width`).
func checkParallelProduct(m: Int, n: Int, k: Int, segments: Int, x: [Float], expected: [Float],
                          multiply: (_ threads: Int, _ b: [Float], _ width: Int, _ segments: Int,
                                     _ c: UnsafeMutablePointer<Float>, _ epilogue: GEMM.RowEpilogue) -> Void) {
    func run(threads: Int, columns: Range<Int> = 0..<n, segments: Int) -> (c: [Float], finished: [Int]) {
        let width = columns.count
        let b: [Float] = (0..<k).flatMap { (row: Int) -> ArraySlice<Float> in
            x[(row * n + columns.lowerBound)..<(row * n + columns.upperBound)]
        }
        var c = [Float](repeating: .nan, count: m * width)
        var finished = [Int](repeating: 0, count: m * width)
        let lock = NSLock()
        c.withUnsafeMutableBufferPointer { cp in
            let base = cp.baseAddress!
            multiply(threads, b, width, segments, base) { row, start, count in
                lock.lock()
                for j in 0..<count {
                    let index = base.distance(to: start) + j
                    XCTAssertFalse(start[j].isNaN, "epilogue before the product at \(index)")
                    finished[index] += 1
                }
                XCTAssertEqual(base.distance(to: start) / width, row)
                lock.unlock()
            }
        }
        return (c, finished)
    }
    let label = "\(m)×\(n)×\(k), \(segments) segments"
    let one = run(threads: 1, segments: segments)
    XCTAssertEqual(one.finished, [Int](repeating: 1, count: m * n), label)
    for i in 0..<(m * n) {
        XCTAssertEqual(one.c[i], expected[i], accuracy: 1e-5 * Float(k).squareRoot(), "\(label) at \(i)")
    }
    for threads in [2, 3, 8] {
        XCTAssertEqual(run(threads: threads, segments: segments).c.map(\.bitPattern), one.c.map(\.bitPattern),
                       "\(label), \(threads) workers")
    }
    let width = n / segments
    for segment in 0..<segments where segments > 1 {
        let alone = run(threads: 2, columns: (segment * width)..<((segment + 1) * width), segments: 1).c
        let part: [Float] = (0..<m).flatMap { (row: Int) -> ArraySlice<Float> in
            let start = row * n + segment * width
            return one.c[start..<(start + width)]
        }
        XCTAssertEqual(part.map(\.bitPattern), alone.map(\.bitPattern), "\(label), segment \(segment) alone")
    }
}
