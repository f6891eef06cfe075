// Usage: DetectPhoto <cfg> <weights> <names> <photo>
import Darknet
import Foundation
import Imaging

let arguments = CommandLine.arguments
guard arguments.count == 5 else {
    FileHandle.standardError.write(Data("usage: DetectPhoto <cfg> <weights> <names> <photo>\n".utf8))
    exit(2)
}
do {
    let detector = try Detector(cfg: arguments[1], weights: arguments[2])
    let names = try ClassNames.load(contentsOf: arguments[3])
    let image = try Image(contentsOf: arguments[4])
    for detection in try detector.detect(in: image) {
        let box = detection.pixelBox(imageWidth: image.width, imageHeight: image.height)
        print("\(names[detection.classId]) \(Int((detection.confidence * 100).rounded()))% [\(box.left), \(box.top), \(box.right), \(box.bottom)]")
    }
} catch {
    FileHandle.standardError.write(Data("DetectPhoto: \(error)\n".utf8))
    exit(1)
}
