import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest

/// The tests' own models and photos, written into a temporary folder: a cheap detector
/// (`CheapDetector`, synthetic weights) whose boxes change with the photo, a three-class
/// classifier, and photos of seeded noise.
struct ServeModels {
    let folder: URL
    let detectorCfg: String
    let detectorWeights: String
    let names: String
    let classifierCfg: String
    let classifierWeights: String
    let classifierLabels: String

    init(_ testCase: XCTestCase) throws {
        folder = try TestData.temporaryFolder(testCase, prefix: "darknet-swift-serve-models")
        detectorCfg = folder.appendingPathComponent("cheap.cfg").path
        let text = CheapDetector.cfg(size: 64, pool: 2)
        try text.write(toFile: detectorCfg, atomically: true, encoding: .utf8)
        detectorWeights = folder.appendingPathComponent("cheap.weights").path
        try Data(SyntheticWeights.bytes(for: ModelDescription(text: text), seed: 3)).write(to: URL(fileURLWithPath: detectorWeights))
        names = folder.appendingPathComponent("cheap.names").path
        try "thing\n".write(toFile: names, atomically: true, encoding: .utf8)
        // avgpool → connected (biases 2, 1, 0) → softmax: 66.52 %, 24.47 %, 9.00 % for every photo.
        classifierCfg = folder.appendingPathComponent("classifier.cfg").path
        try "[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=3\nactivation=linear\n[softmax]\n"
            .write(toFile: classifierCfg, atomically: true, encoding: .utf8)
        var bytes: [UInt8] = []
        for v in [Int32(0), 2, 0] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: UInt64(0)) { bytes += $0 }
        for f in [Float(2), 1, 0] + [Float](repeating: 0, count: 9) { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } }
        classifierWeights = folder.appendingPathComponent("classifier.weights").path
        try Data(bytes).write(to: URL(fileURLWithPath: classifierWeights))
        classifierLabels = folder.appendingPathComponent("labels.txt").path
        try "red\ngreen\nblue\n".write(toFile: classifierLabels, atomically: true, encoding: .utf8)
    }

    /// `--model` values of the detector (`cheap`) and the classifier (`tiny`).
    var arguments: [String] {
        ["--model", "cheap=\(detectorCfg),\(detectorWeights),\(names)",
         "--model", "tiny=\(classifierCfg),\(classifierWeights),\(classifierLabels)"]
    }

    /// The cheap detector as `slow`, each forward pass made to take `milliseconds` (the hidden
    /// `--test-pass-delay-ms`): requests queue behind it on any CPU and build.
    func slowArguments(milliseconds: Int = 400) -> [String] {
        ["--model", "slow=\(detectorCfg),\(detectorWeights),\(names)", "--test-pass-delay-ms", String(milliseconds)]
    }

    /// The CLI's arguments for the same detector.
    var detectorFiles: [String] { [detectorCfg, detectorWeights, "--names", names] }

    /// A photo of seeded noise and blocks, `width` × `height`, written as `name` (.png or .jpg).
    func photo(_ name: String, width: Int = 96, height: Int = 72, seed: UInt64) throws -> String {
        var generator = SplitMix64(state: seed)
        var data = [Float](repeating: 0, count: 3 * width * height)
        for index in data.indices { data[index] = generator.uniform(0, 1) }
        let path = folder.appendingPathComponent(name).path
        try Image(width: width, height: height, channels: 3, data: data).write(to: path)
        return path
    }
}
