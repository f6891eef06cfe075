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
package enum PoolWindows {
    /// Scratch floats `maxPool` needs: one row maximum per input row and output column.
    package static func scratchCount(height: Int, outWidth: Int) -> Int { height * outWidth }

    /// One `height × width` plane into `outHeight × outWidth`: output (oy, ox) is the max over
    /// rows `offset + oy ..< + size` and columns `offset + ox ..< + size` that lie in the plane.
    package static func maxPool(_ plane: UnsafePointer<Float>, height: Int, width: Int, size: Int, offset: Int,
                                outHeight: Int, outWidth: Int, scratch: UnsafeMutablePointer<Float>,
                                into out: UnsafeMutablePointer<Float>) {
        for y in 0..<height {
            let row = plane + y * width, rowMax = scratch + y * outWidth
            for ox in 0..<outWidth {
                let (first, end) = (max(0, offset + ox), min(width, offset + ox + size))
                var best = -Float.greatestFiniteMagnitude
                var x = first
                while x < end {
                    best = row[x] > best ? row[x] : best
                    x += 1
                }
                rowMax[ox] = best
            }
        }
        for oy in 0..<outHeight {
            let (first, end) = (max(0, offset + oy), min(height, offset + oy + size))
            let outRow = out + oy * outWidth
            var ox = 0
            // 8 columns at a time: the same comparisons, lane by lane.
            while ox + 8 <= outWidth {
                var best = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
                for y in first..<max(first, end) {
                    let value = UnsafeRawPointer(scratch + y * outWidth + ox).loadUnaligned(as: SIMD8<Float>.self)
                    best.replace(with: value, where: value .> best)
                }
                UnsafeMutableRawPointer(outRow + ox).storeBytes(of: best, as: SIMD8<Float>.self)
                ox += 8
            }
            while ox < outWidth {
                var best = -Float.greatestFiniteMagnitude
                for y in first..<max(first, end) where scratch[y * outWidth + ox] > best { best = scratch[y * outWidth + ox] }
                outRow[ox] = best
                ox += 1
            }
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
