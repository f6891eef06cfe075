import Foundation
import TestSupport
import XCTest

/// `darknet-swift classify` through the real binary. The network is avgpool → connected
/// (zero weights, biases 2, 1, 0) → softmax, so any image scores softmax(2, 1, 0):
/// e²/(e²+e+1) = 66.52 %, e/(e²+e+1) = 24.47 %, 1/(e²+e+1) = 9.00 %.
final class ClassifyCommandTests: XCTestCase {
    func model() throws -> (cfg: String, weights: String, labels: String) {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("tiny-classifier.cfg")
        try "[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=3\nactivation=linear\n[softmax]\n"
            .write(to: cfg, atomically: true, encoding: .utf8)
        var bytes: [UInt8] = []
        for v in [Int32(0), 2, 0] { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        withUnsafeBytes(of: UInt64(0)) { bytes += $0 }
        for f in [Float(2), 1, 0] + [Float](repeating: 0, count: 9) { withUnsafeBytes(of: f.bitPattern.littleEndian) { bytes += $0 } }
        let weights = folder.appendingPathComponent("tiny-classifier.weights")
        try Data(bytes).write(to: weights)
        let labels = folder.appendingPathComponent("labels.txt")
        try "cat\ndog\nbird\n".write(to: labels, atomically: true, encoding: .utf8)
        return (cfg.path, weights.path, labels.path)
    }

    func testTextIsDarknetsPercentLines() throws {
        let (cfg, weights, labels) = try model()
        let dog = try TestData.path("data/dog.jpg")
        let result = try CLI.run(["classify", cfg, weights, dog, "--labels", labels, "--top", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "\(dog):\n66.52%: cat\n24.47%: dog\n")
    }

    func testJSONWithoutLabelsUsesClassNumbers() throws {
        let (cfg, weights, _) = try model()
        let result = try CLI.run(["classify", cfg, weights, try TestData.path("data/dog.jpg"), "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["width"] as? Int, 768)
        let classes = try XCTUnwrap(object["classes"] as? [[String: Any]])
        XCTAssertEqual(classes.map { $0["label"] as? String }, ["0", "1", "2"])
        XCTAssertEqual(classes.map { $0["index"] as? Int }, [0, 1, 2])
        XCTAssertEqual(try XCTUnwrap(classes[2]["confidence"] as? Double), 1 / (exp(2) + exp(1) + 1), accuracy: 1e-6)
    }

    func testErrorsAreOneLine() throws {
        let (cfg, weights, _) = try model()
        let folder = try CLI.temporaryFolder(self)
        let labels = folder.appendingPathComponent("two.txt")
        try "a\nb\n".write(to: labels, atomically: true, encoding: .utf8)
        // Too few labels: a warning, as in detect (issue #31); class numbers stand in.
        let result = try CLI.run(["classify", cfg, weights, try TestData.path("data/dog.jpg"), "--labels", labels.path])
        XCTAssertEqual(result.status, 0)
        XCTAssertEqual(result.stderr, "darknet-swift: warning: \(labels.path) has 2 names but the model has 3 classes\n")
        XCTAssertTrue(result.stdout.hasSuffix(" 9.00%: 2\n"), result.stdout)
        let zero = try CLI.run(["classify", cfg, weights, "x.jpg", "--top", "0"])
        XCTAssertNotEqual(zero.status, 0)
        XCTAssertTrue(zero.stderr.contains("--top must be ≥ 1"), zero.stderr)
    }
}
