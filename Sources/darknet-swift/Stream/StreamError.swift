import Foundation
import Video

/// `stream`'s input errors, one line each; offsets count bytes from the start of stdin.
enum StreamError: Error, CustomStringConvertible {
    case corruptFrame(frame: Int, offset: Int, damaged: Int, damage: String)
    case cutFrame(frame: Int, offset: Int, bytes: Int)
    case frameTooLarge(frame: Int, offset: Int, limit: Int)
    case rawSizeMismatch(RawFrameSpec, bytes: Int)
    case rawTruncated(RawFrameSpec, frame: Int, bytes: Int, total: Int)
    case read(Int32)
    /// stdin starts like a container or image format (`ContainerSignature`) other than MJPEG.
    case notMJPEG(format: String)
    /// No JPEG start marker in the first `bytes` bytes of stdin (`ended`: stdin ended there).
    case noJPEGStart(bytes: Int, ended: Bool, magic: String)
    /// `--raw` was given but stdin starts like a container or JPEG.
    case rawIsContainer(RawFrameSpec, format: String)
    /// A video source (file, camera, network stream) failed.
    case source(VideoError)

    /// What to run instead, for a video on stdin.
    static let videoHint = "give the video as the source (darknet-swift stream CFG WEIGHTS video.mp4), or pipe MJPEG "
        + "(ffmpeg -i video.mp4 -f image2pipe -c:v mjpeg - | darknet-swift stream CFG WEIGHTS)"

    var description: String {
        switch self {
        case .corruptFrame(let frame, let offset, let damaged, let damage):
            return "frame \(frame): corrupt JPEG at stream byte \(damaged) (the frame starts at byte \(offset)): \(damage); "
                + "skipped to the next frame start"
        case .cutFrame(let frame, let offset, let bytes):
            return "frame \(frame): the stream ended inside this frame (\(bytes) bytes from stream byte \(offset), no end marker FF D9)"
        case .frameTooLarge(let frame, let offset, let limit):
            return "frame \(frame) (stream byte \(offset)): larger than --max-frame-bytes \(limit) without a JPEG end marker "
                + "(not MJPEG, or raise the limit)"
        case .rawSizeMismatch(let spec, let bytes):
            let frameBytes = spec.frameBytes
            return "--raw \(spec): stdin holds \(bytes) bytes, not a whole number of \(frameBytes)-byte frames "
                + "(\(bytes / frameBytes) frames and \(bytes % frameBytes) bytes): is the size right?"
        case .rawTruncated(let spec, let frame, let bytes, let total):
            return "--raw \(spec): the stream ended \(bytes) bytes into frame \(frame) (frames are \(spec.frameBytes) bytes; "
                + "\(total) bytes read in all): is the size right?"
        case .read(let code):
            return "cannot read stdin: \(String(cString: strerror(code)))"
        case .notMJPEG(let format) where format == "PNG":
            return "stdin holds PNG, not MJPEG: stream reads JPEG frames on stdin; ask ffmpeg for JPEG frames (-f image2pipe "
                + "-c:v mjpeg -) or raw ones (-f rawvideo -pix_fmt rgb24 - with --raw WxH), or give the video as the source"
        case .notMJPEG(let format):
            return "stdin holds \(format), not MJPEG (concatenated JPEG files): \(Self.videoHint)"
        case .noJPEGStart(let bytes, let ended, let magic):
            return (ended ? "stdin ended after \(bytes) bytes without" : "no") + " JPEG frame start (FF D8 FF)"
                + (ended ? "" : " in the first \(bytes) bytes of stdin") + ": not MJPEG (first bytes: \(magic)); \(Self.videoHint)"
        case .rawIsContainer(let spec, let format):
            return "--raw \(spec): stdin holds \(format), not raw frames: "
                + (format == "JPEG" ? "drop --raw to read MJPEG" : Self.videoHint)
        case .source(let error):
            return String(describing: error)
        }
    }
}
