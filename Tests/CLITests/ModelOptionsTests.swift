import Foundation
import XCTest

/// The model options every command shares (`SizeOption`, `ThreadsOption`, `BatchOption`,
/// `EngineOptions`), through the real binary: each is checked while parsing, before any file is
/// opened (the cfg need not exist), with the same first line in every command that takes it.
final class ModelOptionsTests: XCTestCase {
    static let commands: [String: [String]] = [
        "detect": ["detect", "/nonexistent.cfg", "/nonexistent.weights", "photo.jpg"],
        "stream": ["stream", "/nonexistent.cfg", "/nonexistent.weights"],
        "classify": ["classify", "/nonexistent.cfg", "/nonexistent.weights", "photo.jpg"],
        "benchmark": ["benchmark", "/nonexistent.cfg"],
        "synth-weights": ["synth-weights", "/nonexistent.cfg", "/nonexistent.weights"],
        "summary": ["summary", "/nonexistent.cfg"],
    ]

    func assertRefused(_ option: [String], by names: [String], with message: String,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        for name in names {
            let result = try CLI.run(try XCTUnwrap(Self.commands[name]) + option)
            XCTAssertEqual(result.status, 2, "\(name) \(option): \(result.stderr)", file: file, line: line)
            XCTAssertEqual(result.stdout, "", file: file, line: line)
            XCTAssertEqual(result.stderr.split(separator: "\n").first.map(String.init), message, "\(name) \(option)",
                           file: file, line: line)
        }
    }

    func testSizeIsAMultipleOf32ForDetectorsAndAnySizeForClassifiers() throws {
        try assertRefused(["--size", "100"], by: ["detect", "stream", "benchmark"],
                          with: "Error: --size must be a multiple of 32 in 32...16384, got 100")
        try assertRefused(["--size", "16416"], by: ["detect", "stream", "benchmark"],
                          with: "Error: --size must be a multiple of 32 in 32...16384, got 16416")
        try assertRefused(["--size", "0"], by: ["classify", "synth-weights", "summary"], with: "Error: --size must be in 1...16384, got 0")
        try assertRefused(["--size", "16385"], by: ["classify", "synth-weights", "summary"], with: "Error: --size must be in 1...16384, got 16385")
    }

    func testThreadsBatchAndConvolutionMethodsAreCheckedAlike() throws {
        try assertRefused(["--threads", "0"], by: ["detect", "stream", "classify", "benchmark"],
                          with: "Error: --threads must be ≥ 1, got 0")
        try assertRefused(["--batch", "65"], by: ["detect", "benchmark"], with: "Error: --batch must be in 1...64, got 65")
        try assertRefused(["--conv-algorithm", "fast"], by: ["detect", "benchmark", "summary"],
                          with: "Error: The value 'fast' is invalid for '--conv-algorithm <conv-algorithm>'. "
                              + "Please provide one of 'auto', 'im2col', 'winograd' or 'winograd-streamed'.")
    }
}
