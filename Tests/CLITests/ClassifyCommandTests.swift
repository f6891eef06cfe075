import Foundation
import TestSupport
import XCTest

/// `darknet-swift classify` through the real binary. The network is avgpool → connected
/// (zero weights, biases 2, 1, 0) → softmax, so any image scores softmax(2, 1, 0):
/// e²/(e²+e+1) = 66.52 %, e/(e²+e+1) = 24.47 %, 1/(e²+e+1) = 9.00 %.
final class ClassifyCommandTests: XCTestCase {
    func model() throws -> (cfg: String, weights: String, labels: String) {
        let folder = try CLI.temporaryFolder(self)
        let (cfg, weights) = try CLI.tinyClassifier(in: folder)
        let labels = folder.appendingPathComponent("labels.txt")
        try "cat\ndog\nbird\n".write(to: labels, atomically: true, encoding: .utf8)
        return (cfg, weights, labels.path)
    }

    func testTextIsDarknetsPercentLines() throws {
        let (cfg, weights, labels) = try model()
        let dog = try TestData.path("data/dog.jpg")
        let result = try CLI.run(["classify", cfg, weights, dog, "--labels", labels, "--top", "2"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "\(dog):\n66.52%: cat\n24.47%: dog\n")
    }

    /// `--format json` is one document, an array of the objects `jsonl` prints a line each.
    func testJSONWithoutLabelsUsesClassNumbers() throws {
        let (cfg, weights, _) = try model()
        let result = try CLI.run(["classify", cfg, weights, try TestData.path("data/dog.jpg"), "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.count, 1)
        let lines = try CLI.run(["classify", cfg, weights, try TestData.path("data/dog.jpg"), "--format", "jsonl"])
        XCTAssertEqual(result.stdout, "[\n" + lines.stdout.dropLast() + "\n]\n")
        let object = array[0]
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

    /// A classifier with convolutions (16 3×3 filters, max pool, 10 1×1 filters, average pool,
    /// softmax) on synthetic weights, written into a fresh folder.
    func convolutionalModel() throws -> (cfg: String, weights: String) {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("conv-classifier.cfg").path
        try ("[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n"
             + "[maxpool]\nsize=2\nstride=2\n[convolutional]\nfilters=10\nsize=1\nstride=1\nactivation=linear\n[avgpool]\n[softmax]\n")
            .write(toFile: cfg, atomically: true, encoding: .utf8)
        let weights = folder.appendingPathComponent("conv-classifier.weights").path
        let synth = try CLI.run(["synth-weights", cfg, weights])
        XCTAssertEqual(synth.status, 0, synth.stderr)
        return (cfg, weights)
    }

    /// `--threads` reaches the classifier's network: its convolutions on one worker and on two
    /// score alike, a count above the cap is capped with the warning `detect` gives, and a count
    /// that is not a positive number is a usage error whose first line names it.
    func testThreadsScoreAlikeAndAreChecked() throws {
        let (cfg, weights) = try convolutionalModel()
        let arguments = ["classify", cfg, weights, try TestData.path("data/dog.jpg"), "--top", "10", "--format", "jsonl"]
        let one = try CLI.run(arguments + ["--threads", "1"])
        let two = try CLI.run(arguments + ["--threads", "2"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(two.status, 0, two.stderr)
        let classes = try XCTUnwrap(CLI.objects(one.stdout).first?["classes"] as? [[String: Any]])
        XCTAssertEqual(classes.count, 10)
        XCTAssertEqual(one.stdout, two.stdout)
        let many = try CLI.run(arguments + ["--threads", "100000"])
        XCTAssertEqual(many.status, 0, many.stderr)
        XCTAssertEqual(many.stdout, one.stdout)
        XCTAssertTrue(many.stderr.hasPrefix("darknet-swift: warning: --threads 100000 is more than "), many.stderr)
        for (value, error) in [("0", "Error: --threads must be ≥ 1, got 0"),
                               ("two", "Error: The value 'two' is invalid for '--threads <threads>'")] {
            let result = try CLI.run(arguments + ["--threads", value])
            XCTAssertEqual(result.status, 2, value)
            XCTAssertEqual(result.stdout, "", value)
            XCTAssertEqual(result.stderr.split(separator: "\n").first.map(String.init), error, value)
        }
    }

    /// A classifier's `--size` is any size the engine reads (`detect` wants multiples of 32).
    func testSizeNeedNotBeAMultipleOf32() throws {
        let (cfg, weights) = try convolutionalModel()
        let dog = try TestData.path("data/dog.jpg")
        let small = try CLI.run(["classify", cfg, weights, dog, "--size", "20"])
        XCTAssertEqual(small.status, 0, small.stderr)
        let zero = try CLI.run(["classify", cfg, weights, dog, "--size", "0"])
        XCTAssertEqual(zero.status, 2)
        XCTAssertEqual(zero.stderr.split(separator: "\n").first.map(String.init), "Error: --size must be in 1...16384, got 0")
    }
}
