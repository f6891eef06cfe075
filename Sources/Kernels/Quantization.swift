/// How a layer's input is quantized (affine, per layer): `q = clamp(round(x / scale) + zeroPoint,
/// 0, levels)`, stored as the `Int8` `q − offset` so that oneDNN's s8×s8 GEMM multiplies it
/// (`OneDNN`: `levels` 255 and `offset` 128 with VNNI, 127 and 64 without). A pixel darknet pads
/// with 0 is `zeroPoint`, and `x ≈ scale · (q − zeroPoint)`.
package struct ActivationQuantization: Sendable, Hashable {
    package var scale: Float
    package var zeroPoint: Int32
    package var levels: Int32

    package init(scale: Float, zeroPoint: Int32, levels: Int32) {
        precondition(scale > 0 && scale.isFinite && (0...levels).contains(zeroPoint) && (levels == 255 || levels == 127),
                     "ActivationQuantization: scale \(scale), zero point \(zeroPoint), levels \(levels)")
        (self.scale, self.zeroPoint, self.levels) = (scale, zeroPoint, levels)
    }

    /// Subtracted from `q` to store it in an `Int8`.
    package var offset: Int32 { (levels + 1) / 2 }
    /// What a 0 (darknet's padding) is stored as.
    package var zero: Int8 { Int8(zeroPoint - offset) }
    /// Multiplies the input: `x · inverseScale + zeroPoint` is rounded (division would be slower
    /// and no more exact; the reference uses the same product).
    package var inverseScale: Float { 1 / scale }
}

/// The int8 convolution's element-wise steps, each with the naive form it is tested against.
package enum Quantization {
    /// `count` floats → their quantized `Int8`s (`ActivationQuantization`), on up to `threads`
    /// workers. Rounding is to nearest, ties to even, after clamping; NaN becomes 0. With
    /// `unsigned`, each byte is `q` itself (a `UInt8`, what `multiplyTransposed` reads) instead
    /// of `q − offset`.
    package static func quantize(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Int8>,
                                 _ q: ActivationQuantization, unsigned: Bool = false, threads: Int) {
        let chunk = 1 << 14
        Parallel.forChunks(of: (count + chunk - 1) / chunk, work: count, threads: threads) { range in
            let start = range.lowerBound * chunk, end = min(count, range.upperBound * chunk)
            quantizeSerially(x + start, count: end - start, into: out + start, q, unsigned: unsigned)
        }
    }

    /// `quantize` on the calling thread, 16 at a time. `v + 1.5·2²³` puts `round(v)` in the
    /// low bits of the float (v in 0...255 after the clamp), rounding to nearest even as
    /// `rounded(.toNearestOrEven)` does, with no conversion instruction that could trap.
    static func quantizeSerially(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutablePointer<Int8>,
                                 _ q: ActivationQuantization, unsigned: Bool = false) {
        let inverse = q.inverseScale, zeroPoint = Float(q.zeroPoint), levels = Float(q.levels)
        let magic: Float = 12_582_912, offset = Int32(0x4B40_0000) + (unsigned ? 0 : q.offset)
        var i = 0
        while i + 16 <= count {
            var v = UnsafeRawPointer(x + i).loadUnaligned(as: SIMD16<Float>.self) * inverse + zeroPoint
            v.replace(with: 0, where: .!(v .> 0))
            v.replace(with: levels, where: v .> levels)
            let stored = unsafeBitCast(v + magic, to: SIMD16<Int32>.self) &- offset
            UnsafeMutableRawPointer(out + i).storeBytes(of: SIMD16<Int8>(truncatingIfNeeded: stored), as: SIMD16<Int8>.self)
            i += 16
        }
        while i < count {
            out[i] = quantizeReference(x[i], q, unsigned: unsigned)
            i += 1
        }
    }

    /// One value quantized from the definition (its byte: `q − offset`, or `q` with `unsigned`).
    package static func quantizeReference(_ x: Float, _ q: ActivationQuantization, unsigned: Bool = false) -> Int8 {
        let v = x * q.inverseScale + Float(q.zeroPoint)
        let clamped = v > 0 ? min(v, Float(q.levels)) : 0
        return Int8(truncatingIfNeeded: Int32(clamped.rounded(.toNearestOrEven)) - (unsigned ? 0 : q.offset))
    }

    /// A row of exact sums turned into floats where they lie: `Float(sum + compensation) · scale`
    /// over `count` `Int32`s at `row`, each replaced by its Float (the same 4 bytes).
    ///
    /// 16 at a time, each sum converted as `Float(high) · 65536 + Float(low)` of its upper and
    /// lower 16 bits (each half converted exactly through `v + 1.5·2²³`; the product is exact
    /// and the one rounding is the sum's, so the bits are `Float(sum)`'s): the standard
    /// library's vector conversion ran element by element.
    package static func dequantize(_ row: UnsafeMutableRawPointer, count: Int, compensation: Int32, scale: Float) {
        let magic = SIMD16<Int32>(repeating: 0x4B40_0000)
        var i = 0
        while i + 16 <= count {
            let sums = row.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Int32>.self) &+ compensation
            let high = unsafeBitCast((sums &>> 16) &+ magic, to: SIMD16<Float>.self) - 12_582_912
            let low = unsafeBitCast((sums & 0xFFFF) &+ magic, to: SIMD16<Float>.self) - 12_582_912
            row.storeBytes(of: (high * 65536 + low) * scale, toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count {
            let sum = row.load(fromByteOffset: 4 * i, as: Int32.self) &+ compensation
            row.storeBytes(of: Float(sum) * scale, toByteOffset: 4 * i, as: Float.self)
            i += 1
        }
    }

    /// `dequantize` of a column of sums `stride` apart (a filter's outputs in the transposed
    /// product, `Int8GEMM.multiplyTransposed`) into `count` contiguous floats at `out`.
    package static func dequantize(column: UnsafeRawPointer, count: Int, stride: Int, compensation: Int32, scale: Float,
                                   into out: UnsafeMutablePointer<Float>) {
        for i in 0..<count {
            out[i] = Float(column.load(fromByteOffset: 4 * i * stride, as: Int32.self) &+ compensation) * scale
        }
    }

    /// A layer's weights quantized per filter, symmetric (`QuantizedWeights`).
    package static func quantizeWeights(_ weights: UnsafeBufferPointer<Float>, filters: Int) -> QuantizedWeights {
        precondition(filters > 0 && weights.count % filters == 0, "quantizeWeights: \(weights.count) weights in \(filters) filters")
        let k = weights.count / filters
        var values = [Int8](repeating: 0, count: weights.count)
        var scales = [Float](repeating: 1, count: filters), sums = [Int32](repeating: 0, count: filters)
        for filter in 0..<filters {
            let row = weights[(filter * k)..<((filter + 1) * k)]
            let largest = row.reduce(Float(0)) { max($0, $1.magnitude.isFinite ? $1.magnitude : 0) }
            guard largest > 0 else { continue }
            let scale = largest / 127
            var sum: Int32 = 0
            for (i, w) in row.enumerated() {
                let scaled = (w / scale).rounded(.toNearestOrEven)
                let value: Int8 = scaled.isNaN ? 0 : Int8(max(-127, min(127, scaled)))
                values[filter * k + i] = value
                sum += Int32(value)
            }
            (scales[filter], sums[filter]) = (scale, sum)
        }
        return QuantizedWeights(values: values, scales: scales, sums: sums)
    }
}

/// A layer's weights in int8, per filter (output channel), symmetric:
/// `w ≈ scales[f] · values[f·k + i]`, `values` in −127...127 (`scales[f] = max |w| / 127`, 1
/// for a filter of zeros), and each filter's sum of values (for the zero point's term).
package struct QuantizedWeights: Sendable, Hashable {
    package var values: [Int8]
    package var scales: [Float]
    package var sums: [Int32]
}
