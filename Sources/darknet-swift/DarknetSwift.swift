import ArgumentParser

@main
struct DarknetSwift: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "darknet-swift",
        abstract: "Run Darknet YOLO models (.cfg + .weights) on the CPU.",
        version: "0.1.0",
        subcommands: [Detect.self, Classify.self, Summary.self, Benchmark.self]
    )
}
