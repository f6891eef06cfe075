import Foundation

/// The `ffmpeg` program that decodes sources and encodes videos, run as a child process.
///
/// Rules: it is the first executable `ffmpeg` in a folder of `PATH` (as a shell finds it),
/// and `ffmpeg -version` must say FFmpeg `minimum` or later: the decoder passes frames
/// through with `-fps_mode passthrough` and asks `showinfo` not to checksum them
/// (`showinfo=checksum=0`), both in FFmpeg 5.1. A build from git (`N-…`, no release number) is
/// taken as new enough.
public struct FFmpeg: Sendable, Equatable {
    public static let minimum = (major: 5, minor: 1)

    /// The executable's path.
    public let path: String
    /// As `ffmpeg -version` says it: `5.1.9-0+deb12u1`, `N-113470-g…`.
    public let version: String

    public init(path: String, version: String) {
        self.path = path
        self.version = version
    }

    /// Finds `ffmpeg` on `PATH` (from `environment`) and checks its version.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(VideoError) -> FFmpeg {
        let folders = (environment["PATH"] ?? "").split(separator: ":").map(String.init).filter { !$0.isEmpty }
        guard let path = folders.map({ ($0 as NSString).appendingPathComponent("ffmpeg") })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .ffmpegMissing(searched: folders)
        }
        let output: String
        do {
            output = try ChildProcess.output(of: path, ["-hide_banner", "-version"])
        } catch {
            throw .ffmpegUnusable(path: path, reason: String(describing: error))
        }
        guard let version = versionText(output) else {
            throw .ffmpegUnusable(path: path, reason: "no \"ffmpeg version\" in its first line: \(output.prefix(80))")
        }
        if let number = releaseNumber(version),
           number.major < minimum.major || (number.major == minimum.major && number.minor < minimum.minor) {
            throw .ffmpegTooOld(path: path, version: version, minimum: "\(minimum.major).\(minimum.minor)")
        }
        return FFmpeg(path: path, version: version)
    }

    /// The word after "ffmpeg version" in `ffmpeg -version`'s output.
    static func versionText(_ output: String) -> String? {
        guard let line = output.split(separator: "\n").first, line.hasPrefix("ffmpeg version ") else { return nil }
        return line.dropFirst("ffmpeg version ".count).split(separator: " ").first.map(String.init)
    }

    /// The release's major and minor number (`5.1.9-0+deb12u1` → 5.1, `n6.1` → 6.1, `7.0` →
    /// 7.0); nil for a git build (`N-113470-g…`), whose options are the newest.
    static func releaseNumber(_ version: String) -> (major: Int, minor: Int)? {
        let text = version.hasPrefix("n") ? version.dropFirst() : Substring(version)
        let digits = text.prefix { $0.isNumber || $0 == "." }.split(separator: ".")
        guard let major = digits.first.flatMap({ Int($0) }) else { return nil }
        return (major, digits.count > 1 ? Int(digits[1]) ?? 0 : 0)
    }
}
