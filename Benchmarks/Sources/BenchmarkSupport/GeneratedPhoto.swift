import Foundation
import Imaging

/// A deterministic 3-channel `width × height` image with a photo's mix of smooth gradients,
/// edges and fine noise (so JPEG sizes and decode times are a photo's, not a flat field's),
/// made in memory so the suites need no fetched photo.
/// Sample (c, y, x): a sum of two slow sinusoids per channel, a darker disc, 16-px tiles
/// every other row of tiles, and ±6 % hash noise, clamped to [0, 1].
public func generatedPhoto(width: Int, height: Int) -> Image {
    var data = [Float](repeating: 0, count: 3 * width * height)
    let cx = Float(width) * 0.6, cy = Float(height) * 0.45, radius = Float(min(width, height)) * 0.3
    var i = 0
    for c in 0..<3 {
        let phase = Float(c) * 2.1
        for y in 0..<height {
            for x in 0..<width {
                let fx = Float(x), fy = Float(y)
                var v: Float = 0.5 + 0.25 * sinf(fx / 97 + phase) + 0.15 * sinf(fy / 41 - fx / 173 + phase)
                let dx = fx - cx, dy = fy - cy
                if dx * dx + dy * dy < radius * radius { v *= 0.55 }
                if (y / 16) % 2 == 0 && (x / 16 + c) % 3 == 0 { v += 0.1 }
                var h = UInt32(truncatingIfNeeded: (x &* 73_856_093) ^ (y &* 19_349_663) ^ (c &* 83_492_791))
                h = (h ^ (h >> 13)) &* 0x5bd1_e995
                h ^= h >> 15
                v += (Float(h & 0xFFFF) / 65535 - 0.5) * 0.12
                data[i] = min(max(v, 0), 1)
                i += 1
            }
        }
    }
    return Image(width: width, height: height, channels: 3, data: data)
}
