import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest

/// `[net] channels=1` (and 2, 4) end to end through the real binary, on the tests' own small
/// cfgs with synthetic weights: images are converted as AlexeyAB's darknet loads them
/// (stb_image: grey `(77r+150g+29b)>>8` of a PNG's bytes, a JPEG's own Y plane).
final class ChannelsCommandTests: XCTestCase {
    static let detectorCfg = """
        [net]
        width=64
        height=64
        channels=CHANNELS
        [convolutional]
        batch_normalize=1
        filters=8
        size=3
        stride=2
        pad=1
        activation=leaky
        [convolutional]
        filters=21
        size=1
        stride=1
        pad=1
        activation=linear
        [yolo]
        mask=0,1,2
        anchors=10,14, 23,27, 37,58
        classes=2
        num=3
        """

    static let classifierCfg = """
        [net]
        width=32
        height=32
        channels=CHANNELS
        [convolutional]
        filters=4
        size=3
        stride=1
        pad=1
        activation=leaky
        [avgpool]
        [connected]
        output=5
        activation=linear
        [softmax]
        """

    /// The cfg with `channels` written into `folder`, and synthetic weights (seed 7) for it.
    func model(_ template: String, channels: Int, in folder: URL) throws -> [String] {
        let text = template.replacingOccurrences(of: "CHANNELS", with: "\(channels)")
        let cfg = folder.appendingPathComponent("c\(channels)-\(template.count).cfg")
        try text.write(to: cfg, atomically: true, encoding: .utf8)
        let weights = folder.appendingPathComponent("c\(channels)-\(template.count).weights")
        if channels <= 4 {
            try Data(SyntheticWeights.bytes(for: ModelDescription(text: text), seed: 7)).write(to: weights)
        } else {
            try Data(count: 20).write(to: weights)
        }
        return [cfg.path, weights.path]
    }

    /// A colour PNG of dog.jpg, the grey PNG stb_image's formula makes of it, and the PNG of
    /// its red channel (what the engine used to give a 1-channel network).
    func images(in folder: URL) throws -> (colour: String, grey: String, red: String) {
        let paths = ["colour.png", "grey.png", "red.png"].map { folder.appendingPathComponent($0).path }
        try Image(contentsOf: try TestData.path("data/dog.jpg")).resized(width: 200, height: 150).write(to: paths[0])
        let photo = try Image(contentsOf: paths[0])  // every sample a byte / 255 again
        let plane = photo.width * photo.height
        let byte = { (v: Float) in Int((v * 255).rounded()) }
        var grey = [Float](repeating: 0, count: plane)
        for i in 0..<plane {
            let y = (byte(photo.data[i]) * 77 + byte(photo.data[plane + i]) * 150 + byte(photo.data[2 * plane + i]) * 29) >> 8
            grey[i] = Float(Double(y) / 255)
        }
        try Image(width: photo.width, height: photo.height, channels: 1, data: grey).write(to: paths[1])
        try Image(width: photo.width, height: photo.height, channels: 1, data: Array(photo.data[..<plane])).write(to: paths[2])
        return (paths[0], paths[1], paths[2])
    }

    /// What a run printed for each image, the path and timings left out.
    func outputs(_ arguments: [String]) throws -> [String] {
        let result = try CLI.run(arguments + ["--format", "jsonl", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try result.stdout.split(separator: "\n").map { line in
            var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            object["path"] = nil
            object["timing"] = nil
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
        }
    }

    func testGreyDetectorAndClassifierSeeStbsGrey() throws {
        let folder = try CLI.temporaryFolder(self)
        let (colour, grey, red) = try images(in: folder)
        let detector = try model(Self.detectorCfg, channels: 1, in: folder)
        let found = try outputs(["detect"] + detector + [colour, grey, red, "--thresh", "0.05", "--nms-mode", "none"])
        XCTAssertEqual(found.count, 3)
        XCTAssertTrue(found[0].contains("\"classId\""), "the synthetic model detects something: \(found[0])")
        XCTAssertEqual(found[0], found[1], "a colour image is seen as its grey")
        XCTAssertNotEqual(found[0], found[2], "not as its red channel")

        let classifier = try model(Self.classifierCfg, channels: 1, in: folder)
        let classes = try outputs(["classify"] + classifier + [colour, grey, red])
        XCTAssertEqual(classes[0], classes[1])
        XCTAssertNotEqual(classes[0], classes[2])
    }

    /// A JPEG gives its Y plane (Pillow's libjpeg-turbo decode in grey, as stb_image's), not
    /// the formula on the RGB it decodes to.
    func testGreyJPEGIsItsYPlane() throws {
        let python = try TestTools.requireCocoPython()
        let folder = try CLI.temporaryFolder(self)
        let dog = try TestData.path("data/dog.jpg")
        let yPlane = folder.appendingPathComponent("y.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import sys; from PIL import Image; i = Image.open(sys.argv[1]); i.draft('L', i.size); "
                             + "assert i.mode == 'L' and i.size == (768, 576); i.save(sys.argv[2])", dog, yPlane]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "Pillow could not decode \(dog) in grey")
        let formula = folder.appendingPathComponent("formula.png").path
        try Image(contentsOf: dog).converted(toChannels: 1).write(to: formula)

        let detector = try model(Self.detectorCfg, channels: 1, in: folder)
        let found = try outputs(["detect"] + detector + [dog, yPlane, formula, "--thresh", "0.05", "--nms-mode", "none"])
        XCTAssertEqual(found[0], found[1], "dog.jpg is seen as its Y plane")
        XCTAssertNotEqual(found[0], found[2], "not as the formula on its RGB")
        let classifier = try model(Self.classifierCfg, channels: 1, in: folder)
        let classes = try outputs(["classify"] + classifier + [dog, yPlane])
        XCTAssertEqual(classes[0], classes[1])
    }

    /// 2 and 4 channels run (grey or RGB, and opaque alpha); other counts are refused before
    /// the weights are read.
    func testOtherChannelCounts() throws {
        let folder = try CLI.temporaryFolder(self)
        let (colour, grey, _) = try images(in: folder)
        for channels in [2, 4] {
            let detector = try model(Self.detectorCfg, channels: channels, in: folder)
            let found = try outputs(["detect"] + detector + [colour, grey, "--thresh", "0.05"])
            XCTAssertEqual(found.count, 2, "\(channels) channels")
            let classes = try outputs(["classify"] + (try model(Self.classifierCfg, channels: channels, in: folder)) + [colour])
            XCTAssertEqual(classes.count, 1)
        }
        // Grey+alpha of the grey image equals grey+alpha of the colour one.
        let two = try model(Self.detectorCfg, channels: 2, in: folder)
        let found = try outputs(["detect"] + two + [colour, grey, "--thresh", "0.05", "--nms-mode", "none"])
        XCTAssertEqual(found[0], found[1])
        for (command, template) in [("detect", Self.detectorCfg), ("classify", Self.classifierCfg)] {
            let five = try model(template, channels: 5, in: folder)
            let result = try CLI.run([command] + five + [colour])
            XCTAssertEqual(result.status, 2, command)
            XCTAssertEqual(result.stderr, "darknet-swift: error: \(five[0]): [net] channels=5: images are read as 1, 2, 3 or 4 "
                           + "channels (as darknet's stb_image reads them)\n")
        }
    }
}
