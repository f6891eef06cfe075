import Foundation
import TestSupport
import XCTest

/// Malformed command lines for every subcommand (issue #8: CLI arguments are an entry point
/// that takes bytes): valid templates on a tiny model written here, mutated deterministically
/// (values replaced by garbage, options dropped, duplicated or invented, arguments
/// truncated). Each run must end normally — no signal (trap, crash) — with status 0, 1 or 2,
/// and a failure must say why on stderr. It is a fixed corpus, not a fuzzer: a finding would
/// be reproducible from its printed argv.
final class ArgumentCorpusTests: XCTestCase {
    /// `[net]` 32×32×3, a 1×1 convolution to 6 channels and a one-anchor, one-class `[yolo]`.
    static let cfg = "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=6\nsize=1\nactivation=linear\n[yolo]\nmask=0\nanchors=4,4\nclasses=1\nnum=1\n"

    func testMutatedCommandLinesNeverCrash() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("tiny.cfg").path
        try Self.cfg.write(toFile: cfg, atomically: true, encoding: .utf8)
        // Header (major 0, minor 2, revision 0, seen 0) then 6 biases and 6×3 weights, all zero.
        let weights = folder.appendingPathComponent("tiny.weights").path
        var bytes = Data([0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        bytes.append(Data(count: 24 * 4))
        try bytes.write(to: URL(fileURLWithPath: weights))
        let photo = try TestData.path("data/dog.jpg")
        let names = folder.appendingPathComponent("one.names").path
        try "thing\n".write(toFile: names, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out").path

        let templates: [[String]] = [
            ["detect", cfg, weights, photo, "--names", names, "--thresh", "0.5", "--nms", "0.45", "--size", "32",
             "--format", "jsonl", "--max-detections", "3", "--batch", "2", "--threads", "1", "--quiet"],
            ["detect", cfg, weights, photo, "--output-dir", out, "--shard", "1/2", "--classes", "thing", "--quiet"],
            ["summary", cfg, "--size", "64", "--methods", "--conv-algorithm", "winograd"],
            ["benchmark", cfg, weights, "--runs", "1", "--warmup", "0", "--format", "csv", "--batch", "2", "--threads", "1"],
            ["classify", cfg, weights, photo, "--top", "2", "--format", "json"],
            ["stream", cfg, weights, "--raw", "32x32", "--max-frame-bytes", "100", "--smooth", "2"],
        ]
        let garbage = ["", "-1", "0", "99999999999999999999", "nan", "inf", "1e309", "0x10", "x", " ", "-", "--",
                       "../..", "/dev/null", "/nonexistent/file", String(repeating: "9", count: 400), "é", "3/0", "0/0",
                       "1/", "2x", "x32", "32x-32", "--thresh"]
        var generator = SplitMix64(state: 8)  // the same corpus on every machine
        var cases: [[String]] = templates
        for template in templates {
            for _ in 0..<22 {
                var argv = template
                switch generator.next() % 5 {
                case 0, 1:  // a value (or the path) replaced by garbage
                    let i = 1 + Int(generator.next() % UInt64(argv.count - 1))
                    argv[i] = garbage[Int(generator.next() % UInt64(garbage.count))]
                case 2:  // an argument dropped
                    argv.remove(at: 1 + Int(generator.next() % UInt64(argv.count - 1)))
                case 3:  // an option repeated or an unknown one inserted
                    let i = 1 + Int(generator.next() % UInt64(argv.count - 1))
                    argv.insert(generator.next() % 2 == 0 ? argv[i] : "--no-such-option", at: i)
                default:  // truncated
                    argv = Array(argv.prefix(1 + Int(generator.next() % UInt64(argv.count))))
                }
                cases.append(argv)
            }
        }
        for argv in cases {
            try? FileManager.default.removeItem(atPath: out)
            let result = try CLI.run(argv)
            let shown = argv.map { "'\($0)'" }.joined(separator: " ")
            XCTAssertFalse(result.signaled, "killed by signal \(result.status): \(shown)\n\(result.stderr)")
            XCTAssertTrue([0, 1, 2].contains(result.status), "status \(result.status): \(shown)\n\(result.stderr)")
            if result.status != 0 {
                XCTAssertFalse(result.stderr.isEmpty, "a failure says why: \(shown)")
            }
        }
    }
}
