@testable import Kernels
import XCTest

/// `PoolWindows.maxPool` (row pass, then column pass) against the one-window loop, bit for bit,
/// on odd shapes: windows larger than the plane, one-pixel planes, offsets that put whole
/// windows outside, widths with and without 8-wide column runs; values with NaNs and signed
/// zeros where a window's max is often a zero, so the tap that wins a tie shows in the bits.
final class PoolWindowsTests: XCTestCase {
    func testMatchesTheOneWindowLoop() {
        var seed: UInt64 = 7
        func next() -> Float {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Float(seed >> 40) / Float(1 << 24)
        }
        for (height, width) in [(1, 1), (1, 9), (7, 1), (13, 13), (19, 19), (6, 23), (26, 17)] {
            for size in [3, 5, 9, 13] {
                for offset in [-(size - 1) / 2, 0, -size, 2] {
                    let (outHeight, outWidth) = (height, width)
                    let plane = (0..<height * width).map { i -> Float in
                        switch i % 11 {
                        case 3: return .nan
                        case 5: return -0.0
                        case 6: return 0.0
                        default: return i % 2 == 0 ? -next() : next() - 0.5
                        }
                    }
                    var fast = [Float](repeating: .nan, count: outHeight * outWidth), expected = fast
                    var scratch = [Float](repeating: .nan, count: PoolWindows.scratchCount(height: height, outWidth: outWidth,
                                                                                              size: size))
                    PoolWindows.maxPool(plane, height: height, width: width, size: size, offset: offset,
                                        outHeight: outHeight, outWidth: outWidth, scratch: &scratch, into: &fast)
                    PoolWindows.reference(plane, height: height, width: width, size: size, offset: offset,
                                          outHeight: outHeight, outWidth: outWidth, into: &expected)
                    XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern),
                                   "\(height)×\(width), \(size)×\(size) from \(offset)")
                }
            }
        }
    }
}
