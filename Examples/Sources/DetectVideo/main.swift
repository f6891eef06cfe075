// Usage: DetectVideo <cfg> <weights> <names> <video, camera or stream URL>
import Darknet
import Foundation
import Video

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: DetectVideo <cfg> <weights> <names> <video, camera or stream URL>\n".utf8))
    exit(2)
}
do {
    let detector = try Detector(cfg: arguments[1], weights: arguments[2])
    let names = try ClassNames.load(contentsOf: arguments[3])
    let source = try VideoSource(VideoInput(argument: arguments[4]) ?? .file(arguments[4]), ffmpeg: FFmpeg.locate())
    while let frame = try source.next() {
        let found = try detector.detect(in: frame.image()).map { names[$0.classId] }
        print("frame \(frame.index) at \(frame.pts.map { String(format: "%.3f", $0) } ?? "?") s: \(found.joined(separator: ", "))")
    }
} catch {
    FileHandle.standardError.write(Data("DetectVideo: \(error)\n".utf8))
    exit(1)
}
