/// Names the container or image format a byte stream starts with, from its first bytes (the
/// signatures the formats' specifications fix), so a video given where frames or an image
/// were expected is named instead of decoded as garbage.
public enum ContainerSignature {
    /// Bytes enough to tell every format here apart.
    public static let length = 4 + 188 + 1

    /// The format's name ("MP4/MOV (ISO base media)", "Matroska", "WebM", "AVI", "PNG",
    /// "JPEG", …) when `bytes` (the stream's first bytes, at least `length` of them unless the
    /// stream is shorter) start like one; nil otherwise.
    public static func name(of bytes: some Collection<UInt8>) -> String? {
        let head = Array(bytes.prefix(length))
        func at(_ offset: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return head.count >= offset + expected.count && Array(head[offset..<offset + expected.count]) == expected
        }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "JPEG" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "PNG" }
        if ["ftyp", "moov", "mdat", "free", "wide", "skip"].contains(where: { at(4, $0) }) { return "MP4/MOV (ISO base media)" }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            // The EBML header's DocType ("webm" or "matroska") comes within its first bytes.
            let text = String(decoding: head.prefix(64).map { (0x20..<0x7F).contains($0) ? $0 : 0x20 }, as: UTF8.self)
            return text.contains("webm") ? "WebM" : "Matroska"
        }
        if at(0, "RIFF") && at(8, "AVI ") { return "AVI" }
        if at(0, "RIFF") && at(8, "WEBP") { return "WebP" }
        if at(0, "GIF87a") || at(0, "GIF89a") { return "GIF" }
        if at(0, "OggS") { return "Ogg" }
        if at(0, "FLV") && head.count > 3 && head[3] == 1 { return "FLV" }
        if head.starts(with: [0x00, 0x00, 0x01, 0xBA]) { return "MPEG program stream" }
        if head.count > 188 && head[0] == 0x47 && head[188] == 0x47 { return "MPEG transport stream" }
        if at(0, "YUV4MPEG2") { return "YUV4MPEG2" }
        if head.starts(with: [0x30, 0x26, 0xB2, 0x75]) { return "ASF/WMV" }
        return nil
    }

    /// Whether `name` (from `name(of:)`) is a video container rather than a still image.
    public static func isVideo(_ name: String) -> Bool {
        !["JPEG", "PNG", "WebP", "GIF"].contains(name)
    }
}
