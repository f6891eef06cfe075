import Imaging
import Video

/// `--raw WxH[:FORMAT]`: stdin holds raw frames of this size and pixel format (`rgb24`, the
/// default, `bgr24`, `rgba`, `bgra` or `gray`, as ffmpeg's `-pix_fmt` names them), each
/// width × height × bytes-per-pixel bytes, one after another.
struct RawFrameSpec: Equatable, CustomStringConvertible {
    var width: Int
    var height: Int
    var format: RawPixelFormat

    /// nil unless `text` is `WxH` or `WxH:FORMAT` with a positive size of at most
    /// `Image.defaultMaxPixels` pixels and a known format.
    init?(_ text: String) {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { return nil }
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), w > 0, h > 0,
              let format = parts.count == 2 ? RawPixelFormat(rawValue: String(parts[1])) : .rgb24 else { return nil }
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        guard !overflow, pixels <= Image.defaultMaxPixels else { return nil }
        width = w
        height = h
        self.format = format
    }

    var frameBytes: Int { width * height * format.bytesPerPixel }

    /// As the option is written: `640x480`, `640x480:gray`.
    var description: String { "\(width)x\(height)" + (format == .rgb24 ? "" : ":\(format.rawValue)") }

    static let usage = "--raw must be WxH or WxH:FORMAT with FORMAT one of "
        + RawPixelFormat.allCases.map(\.rawValue).joined(separator: ", ") + " (e.g. 640x480, 640x480:bgr24)"
}
