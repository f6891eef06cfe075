import ArgumentParser
import CommandSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `darknet-swift serve …`: runs `darknet-swift-serve` (a product of its own, so the CLI
/// builds no HTTP stack) from the folder of this binary with the same arguments, in this
/// process's place (`execv`: its exit status and signals are the server's). docs/serve.md.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve models over HTTP (runs darknet-swift-serve, built beside this binary).",
        discussion: "Every argument goes to darknet-swift-serve; `darknet-swift serve --help` shows its options.",
        helpNames: []
    )

    @Argument(parsing: .allUnrecognized, help: "darknet-swift-serve's arguments.")
    var arguments: [String] = []

    func run() throws {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let server = folder.appendingPathComponent("darknet-swift-serve").path
        guard FileManager.default.isExecutableFile(atPath: server) else {
            throw CLIError.usage("serve: \(server) is missing: build it with swift build -c release --product darknet-swift-serve")
        }
        let argv = ([server] + arguments).map { strdup($0) } + [nil]
        execv(server, argv)
        throw CLIError.usage("serve: could not run \(server): \(String(cString: strerror(errno)))")
    }
}
