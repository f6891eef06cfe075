import Foundation

/// A source of frames `ffmpeg` reads, as the user names it on a command line.
///
/// Rules (`init?(argument:)`):
/// - `scheme://…` with a streaming scheme (`rtsp`, `rtsps`, `rtmp`, `http`, `https`, `srt`,
///   `udp`, `tcp`, `rtp`) is a network stream; `file://PATH` is the file PATH;
/// - `/dev/videoN` is a camera, and so is a bare number `N` (0…99) naming no file: the Nth
///   camera (`/dev/videoN` on Linux, AVFoundation's device N on macOS);
/// - a path holding a printf number (`%d`, `%04d`) is an image sequence (`frame-%04d.png`);
/// - a path with a video extension (`mp4`, `mkv`, `avi`, `mov`, `webm`, `m4v`, `mpg`,
///   `mpeg`, `ts`, `mts`, `m2ts`, `flv`, `wmv`, `3gp`, `ogv`, `y4m`) is a video file, and so
///   is an existing file whose first bytes are a video container's (`ContainerSignature`);
/// - anything else is not a video (nil): an image, a folder, a list.
public enum VideoInput: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case camera(String)
    case network(String)
    case imageSequence(String)

    public static let videoExtensions: Set<String> = [
        "mp4", "mkv", "avi", "mov", "webm", "m4v", "mpg", "mpeg", "ts", "mts", "m2ts", "flv", "wmv", "3gp", "ogv", "y4m",
    ]
    public static let networkSchemes: Set<String> = ["rtsp", "rtsps", "rtmp", "rtmps", "http", "https", "srt", "udp", "tcp", "rtp"]

    public init?(argument: String) {
        if let range = argument.range(of: "://") {
            let scheme = argument[..<range.lowerBound].lowercased()
            if scheme == "file" {
                self = .file(String(argument[range.upperBound...]))
                return
            }
            guard Self.networkSchemes.contains(scheme) else { return nil }
            self = .network(argument)
            return
        }
        let name = (argument as NSString).lastPathComponent
        if argument.hasPrefix("/dev/video") && Int(argument.dropFirst("/dev/video".count)) != nil {
            self = .camera(argument)
        } else if argument.count <= 2, let index = Int(argument), index >= 0, !FileManager.default.fileExists(atPath: argument) {
            #if os(macOS)
            self = .camera(argument)
            #else
            self = .camera("/dev/video\(index)")
            #endif
        } else if Self.hasPrintfNumber(name) {
            self = .imageSequence(argument)
        } else if Self.videoExtensions.contains((name as NSString).pathExtension.lowercased()) {
            self = .file(argument)
        } else if let head = Self.firstBytes(of: argument), let format = ContainerSignature.name(of: head),
                  ContainerSignature.isVideo(format) {
            self = .file(argument)
        } else {
            return nil
        }
    }

    /// The source as the user gave it, for messages.
    public var description: String {
        switch self {
        case .file(let text), .camera(let text), .network(let text), .imageSequence(let text): return text
        }
    }

    /// A camera or network stream: its end is a disconnection, not the end of the video.
    public var isLive: Bool {
        switch self {
        case .camera, .network: return true
        case .file, .imageSequence: return false
        }
    }

    /// ffmpeg's options for reading this source, ending with `-i SOURCE`; `realtime` reads a
    /// file or sequence at its frame rate (`-re`), as a camera delivers frames.
    func ffmpegArguments(realtime: Bool) -> [String] {
        let pace = realtime ? ["-re"] : []
        switch self {
        case .file(let path):
            return pace + ["-i", "file:" + path]  // `file:` so a name such as `a:b.mp4` is not read as a protocol
        case .imageSequence(let pattern):
            return pace + ["-f", "image2", "-i", pattern.hasPrefix("-") ? "./" + pattern : pattern]
        case .camera(let device):
            #if os(macOS)
            return ["-f", "avfoundation", "-i", device]
            #else
            return ["-f", "v4l2", "-i", device]
            #endif
        case .network(let url):
            let scheme = url.prefix { $0 != ":" }.lowercased()
            // RTSP over TCP: no packets lost to UDP on a busy link, and it passes NAT.
            return (scheme.hasPrefix("rtsp") ? ["-rtsp_transport", "tcp"] : []) + ["-i", url]
        }
    }

    /// A file or device that should exist before ffmpeg is asked to open it (not a camera
    /// given by its number, AVFoundation's on macOS).
    var localPath: String? {
        switch self {
        case .file(let path): return path
        case .camera(let device): return device.hasPrefix("/") ? device : nil
        case .network, .imageSequence: return nil
        }
    }

    static func hasPrintfNumber(_ name: String) -> Bool {
        guard let percent = name.range(of: "%") else { return false }
        let rest = name[percent.upperBound...].drop { $0.isNumber }
        return rest.first == "d"
    }

    private static func firstBytes(of path: String) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: ContainerSignature.length)).map { Array($0) }
    }
}
