/// darknet's `forward_maxpool_layer` for square windows at stride 1 (the SPP blocks' 5×5, 9×9
/// and 13×13 "same" pools of yolov4 and yolov7, where almost every window reaches the border),
/// as two passes: each input row's max over each output's columns, then each output's max over
/// its rows of those. A window's taps outside the plane are skipped, as darknet skips them.
///
/// Same bits as the one-window loop (`reference`: rows top to bottom, each left to right, the
/// first `>` wins, from −FLT_MAX): its winner is the first tap in that order that reaches the
/// window's max; the row pass keeps each row's first such tap and the column pass the first
/// row that has one, which is the same tap (NaNs are skipped by both, and of +0 and −0 the
/// first is kept by both). `size²` comparisons an output become `2·size`.
///
/// Both passes run 8 outputs at a time, each lane comparing its own taps in darknet's order.
/// The row pass reads each row from a copy padded with −FLT_MAX, so every window is `size`
/// taps: a −FLT_MAX tap never wins (the running max starts there and only grows), so it is
/// the same as a skipped one.
package enum PoolWindows {
    /// Scratch floats `maxPool` needs: one row maximum per input row and output column, and
    /// one padded input row (`outWidth + size − 1`).
    package static func scratchCount(height: Int, outWidth: Int, size: Int) -> Int {
        height * outWidth + outWidth + size - 1
    }

    /// One `height × width` plane into `outHeight × outWidth`: output (oy, ox) is the max over
    /// rows `offset + oy ..< + size` and columns `offset + ox ..< + size` that lie in the plane.
    package static func maxPool(_ plane: UnsafePointer<Float>, height: Int, width: Int, size: Int, offset: Int,
                                outHeight: Int, outWidth: Int, scratch: UnsafeMutablePointer<Float>,
                                into out: UnsafeMutablePointer<Float>) {
        // padded[i] is the row's column offset + i, or −FLT_MAX outside the row: the margins
        // are the same for every row, so only `left ..< right` is copied a row.
        let padded = scratch + height * outWidth, paddedCount = outWidth + size - 1
        let (left, right) = (min(paddedCount, max(0, -offset)), max(0, min(paddedCount, width - offset)))
        padded.update(repeating: -Float.greatestFiniteMagnitude, count: paddedCount)
        for y in 0..<height {
            if left < right { (padded + left).update(from: plane + y * width + offset + left, count: right - left) }
            eightAtATime(outWidth, into: scratch + y * outWidth) { ox in
                var best = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
                for t in 0..<size {
                    let value = UnsafeRawPointer(padded + ox + t).loadUnaligned(as: SIMD8<Float>.self)
                    best.replace(with: value, where: value .> best)
                }
                return best
            } one: { ox in
                var best = -Float.greatestFiniteMagnitude
                for t in 0..<size where padded[ox + t] > best { best = padded[ox + t] }
                return best
            }
        }
        for oy in 0..<outHeight {
            let (first, end) = (max(0, offset + oy), min(height, offset + oy + size))
            eightAtATime(outWidth, into: out + oy * outWidth) { ox in
                var best = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
                for y in first..<max(first, end) {
                    let value = UnsafeRawPointer(scratch + y * outWidth + ox).loadUnaligned(as: SIMD8<Float>.self)
                    best.replace(with: value, where: value .> best)
                }
                return best
            } one: { ox in
                var best = -Float.greatestFiniteMagnitude
                for y in first..<max(first, end) where scratch[y * outWidth + ox] > best { best = scratch[y * outWidth + ox] }
                return best
            }
        }
    }

    /// `target[ox] = one(ox)` for `ox < count`, 8 at a time by `eight(ox)` (outputs `ox ..< ox + 8`)
    /// where there are 8: a last partial block is the 8 outputs that end the row, computed again
    /// where they overlap the block before (same values). Rows shorter than 8 take `one`.
    @inline(__always)
    static func eightAtATime(_ count: Int, into target: UnsafeMutablePointer<Float>, _ eight: (Int) -> SIMD8<Float>,
                             one: (Int) -> Float) {
        guard count >= 8 else {
            for ox in 0..<count { target[ox] = one(ox) }
            return
        }
        var ox = 0
        while true {
            UnsafeMutableRawPointer(target + ox).storeBytes(of: eight(ox), as: SIMD8<Float>.self)
            if ox == count - 8 { return }
            ox = min(ox + 8, count - 8)
        }
    }

    /// The one-window loop: each output's taps in darknet's order, checked against the plane.
    package static func reference(_ plane: UnsafePointer<Float>, height: Int, width: Int, size: Int, offset: Int,
                                  outHeight: Int, outWidth: Int, into out: UnsafeMutablePointer<Float>) {
        for oy in 0..<outHeight {
            for ox in 0..<outWidth {
                var best = -Float.greatestFiniteMagnitude
                for y in offset + oy..<offset + oy + size where y >= 0 && y < height {
                    for x in offset + ox..<offset + ox + size where x >= 0 && x < width && plane[y * width + x] > best {
                        best = plane[y * width + x]
                    }
                }
                out[oy * outWidth + ox] = best
            }
        }
    }
}
