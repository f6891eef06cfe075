import Foundation

/// `stream`'s input errors, one line each; offsets count bytes from the start of stdin.
enum StreamError: Error, CustomStringConvertible {
    case corruptFrame(frame: Int, offset: Int, damaged: Int, damage: String)
    case cutFrame(frame: Int, offset: Int, bytes: Int)
    case frameTooLarge(frame: Int, offset: Int, limit: Int)
    case rawSizeMismatch(width: Int, height: Int, bytes: Int)
    case rawTruncated(width: Int, height: Int, frame: Int, bytes: Int, total: Int)
    case read(Int32)

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
        case .rawSizeMismatch(let width, let height, let bytes):
            let frameBytes = width * height * 3
            return "--raw \(width)x\(height): stdin holds \(bytes) bytes, not a whole number of \(frameBytes)-byte frames "
                + "(\(bytes / frameBytes) frames and \(bytes % frameBytes) bytes): is the size right?"
        case .rawTruncated(let width, let height, let frame, let bytes, let total):
            return "--raw \(width)x\(height): the stream ended \(bytes) bytes into frame \(frame) (frames are \(width * height * 3) bytes; "
                + "\(total) bytes read in all): is the size right?"
        case .read(let code):
            return "cannot read stdin: \(String(cString: strerror(code)))"
        }
    }
}
