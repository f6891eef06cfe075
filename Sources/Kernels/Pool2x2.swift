/// darknet's `forward_maxpool_layer` for 2×2 windows, the pools of every YOLO detector: the max
/// of four taps in darknet's order (the first `>` wins, from −FLT_MAX, so NaN taps are skipped).
/// Used by `[maxpool]` itself and by the convolutions that pool their own rows as they finish
/// them (a 2×2 stride-2 pool right after them).
package enum Pool2x2 {
    /// The max of one window (rows `width` apart).
    @inline(__always)
    static func maxOfWindow(_ window: UnsafePointer<Float>, width: Int) -> Float {
        var best = -Float.greatestFiniteMagnitude
        if window[0] > best { best = window[0] }
        if window[1] > best { best = window[1] }
        if window[width] > best { best = window[width] }
        if window[width + 1] > best { best = window[width + 1] }
        return best
    }

    /// Eight stride-2 windows side by side: the two rows' 16 floats split into even (left) and
    /// odd (right) taps. Lane by lane the same comparisons in the same order as `maxOfWindow`,
    /// so the same bits.
    @inline(__always)
    static func maxOf8Windows(_ window: UnsafePointer<Float>, width: Int, into out: UnsafeMutablePointer<Float>) {
        let upper = UnsafeRawPointer(window).loadUnaligned(as: SIMD16<Float>.self)
        let lower = UnsafeRawPointer(window + width).loadUnaligned(as: SIMD16<Float>.self)
        var best = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
        let (a, b, c, d) = (upper.evenHalf, upper.oddHalf, lower.evenHalf, lower.oddHalf)
        best.replace(with: a, where: a .> best)
        best.replace(with: b, where: b .> best)
        best.replace(with: c, where: c .> best)
        best.replace(with: d, where: d .> best)
        UnsafeMutableRawPointer(out).storeBytes(of: best, as: SIMD8<Float>.self)
    }

    /// Eight stride-1 windows side by side (the 2×2/1 pool before yolov3-tiny's last 3×3 layer):
    /// each row's taps at `x` and `x + 1`. Lane by lane the comparisons of `maxOfWindow`, so
    /// the same bits.
    @inline(__always)
    static func maxOf8AdjacentWindows(_ window: UnsafePointer<Float>, width: Int, into out: UnsafeMutablePointer<Float>) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self) }
        let (a, b, c, d) = (load(window), load(window + 1), load(window + width), load(window + width + 1))
        var best = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
        best.replace(with: a, where: a .> best)
        best.replace(with: b, where: b .> best)
        best.replace(with: c, where: c .> best)
        best.replace(with: d, where: d .> best)
        UnsafeMutableRawPointer(out).storeBytes(of: best, as: SIMD8<Float>.self)
    }

    /// One output row of a stride-2 pool from two input rows, `rows` and `rows + width`
    /// (`width` even).
    package static func poolRows(_ rows: UnsafePointer<Float>, width: Int, into out: UnsafeMutablePointer<Float>) {
        poolRow(rows, width: width, stride: 2, outputs: 0..<width / 2, into: out)
    }

    /// Outputs `outputs` of one row of a 2×2 pool at `stride` 1 or 2 whose windows all lie in
    /// the plane: output `ox` is the window at `top + ox · stride` (rows `width` apart), eight
    /// at a time. `Maxpool` calls this once a row: its calls to the window functions, across
    /// modules, were not inlined (0.8 ns an output).
    package static func poolRow(_ top: UnsafePointer<Float>, width: Int, stride: Int, outputs: Range<Int>,
                                into out: UnsafeMutablePointer<Float>) {
        precondition(stride == 1 || stride == 2, "Pool2x2.poolRow: stride \(stride)")
        var ox = outputs.lowerBound
        if stride == 2 {
            while ox + 8 <= outputs.upperBound {
                maxOf8Windows(top + 2 * ox, width: width, into: out + ox)
                ox += 8
            }
        } else {
            while ox + 8 <= outputs.upperBound {
                maxOf8AdjacentWindows(top + ox, width: width, into: out + ox)
                ox += 8
            }
        }
        while ox < outputs.upperBound {
            out[ox] = maxOfWindow(top + ox * stride, width: width)
            ox += 1
        }
    }
}
