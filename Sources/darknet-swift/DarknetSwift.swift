import ArgumentParser
import Foundation

@main
struct DarknetSwift: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "darknet-swift",
        abstract: "Run Darknet YOLO models (.cfg + .weights) on the CPU.",
        version: "0.1.0",
        subcommands: [Detect.self, Stream.self, Classify.self, Summary.self, Benchmark.self]
    )

    /// As ArgumentParser's, except that usage errors exit with status 2 (the convention of
    /// `detect`: 0 all done, 1 some inputs failed, 2 usage or model error) instead of 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
