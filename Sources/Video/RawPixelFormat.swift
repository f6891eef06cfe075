import Imaging

/// The byte layout of one raw frame: interleaved 8-bit pixels, row after row, no padding, as
/// `ffmpeg -f rawvideo -pix_fmt NAME` writes them (the case names are ffmpeg's).
public enum RawPixelFormat: String, CaseIterable, Sendable {
    case rgb24, bgr24, rgba, bgra, gray

    public var bytesPerPixel: Int {
        switch self {
        case .rgb24, .bgr24: return 3
        case .rgba, .bgra: return 4
        case .gray: return 1
        }
    }

    /// The 3-channel RGB image of one frame (`bytes.count` must be width × height ×
    /// `bytesPerPixel`), samples `byte / 255` as the JPEG and PNG decoders give them; alpha is
    /// dropped, and a grey frame gives three equal channels. `name` labels the errors.
    public func image(_ bytes: [UInt8], width: Int, height: Int, name: String = "frame") throws -> Image {
        switch self {
        case .rgb24: return try Image(pixels: bytes, width: width, height: height, bytesPerRow: width * 3, layout: .rgb, name: name)
        case .rgba: return try Image(pixels: bytes, width: width, height: height, bytesPerRow: width * 4, layout: .rgba, name: name)
        case .bgra: return try Image(pixels: bytes, width: width, height: height, bytesPerRow: width * 4, layout: .bgra, name: name)
        case .bgr24, .gray:
            let pixels = width * height
            guard width > 0, height > 0, bytes.count == pixels * bytesPerPixel else {
                throw ImageError.invalidPixelBuffer(name: name, reason: "\(bytes.count) bytes for \(width)x\(height) \(rawValue)")
            }
            var rgb = [UInt8](repeating: 0, count: pixels * 3)
            bytes.withUnsafeBufferPointer { source in
                rgb.withUnsafeMutableBufferPointer { target in
                    for i in 0..<pixels {
                        if self == .gray {
                            target[3 * i] = source[i]; target[3 * i + 1] = source[i]; target[3 * i + 2] = source[i]
                        } else {
                            target[3 * i] = source[3 * i + 2]; target[3 * i + 1] = source[3 * i + 1]; target[3 * i + 2] = source[3 * i]
                        }
                    }
                }
            }
            return try Image(pixels: rgb, width: width, height: height, bytesPerRow: width * 3, layout: .rgb, name: name)
        }
    }
}

/// One decoded frame of a `VideoSource`.
public struct VideoFrame: Sendable {
    /// The frame's number in the source, from 0 (it goes on counting across reconnections).
    public var index: Int
    /// Its presentation time in seconds, as the source stamps it (ffmpeg's `pts_time`); nil
    /// when the source gives none. After a reconnection a live source may start again from 0.
    public var pts: Double?
    public var width: Int
    public var height: Int
    /// RGB24: width × height × 3 bytes, row after row.
    public var pixels: [UInt8]

    public init(index: Int, pts: Double?, width: Int, height: Int, pixels: [UInt8]) {
        self.index = index
        self.pts = pts
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The frame as the planar float image `Detector.detect(in:)` takes.
    public func image() throws -> Image {
        try RawPixelFormat.rgb24.image(pixels, width: width, height: height, name: "frame \(index)")
    }
}
