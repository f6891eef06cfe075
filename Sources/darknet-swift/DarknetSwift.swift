import ArgumentParser
import CommandSupport
import Darknet
import Foundation

@main
struct DarknetSwift: ParsableCommand {
    static let version = "0.1.0"

    /// The version of the compiler that built this binary, major.minor: `#if compiler` tests
    /// nothing finer, and it is the compiler's own version whatever the language mode (no
    /// process, file or build step that could be missing).
    static let swiftVersion: String = {
        #if compiler(>=7.0)
        return "7.0 or later"
        #elseif compiler(>=6.9)
        return "6.9"
        #elseif compiler(>=6.8)
        return "6.8"
        #elseif compiler(>=6.7)
        return "6.7"
        #elseif compiler(>=6.6)
        return "6.6"
        #elseif compiler(>=6.5)
        return "6.5"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }()

    static let configuration = CommandConfiguration(
        commandName: "darknet-swift",
        abstract: "Run Darknet YOLO models (.cfg + .weights) on the CPU.",
        version: version,
        subcommands: [Detect.self, Stream.self, Classify.self, Map.self, Valid.self, DarknetDetector.self, Summary.self, Benchmark.self,
                      Calibrate.self, SynthWeights.self, Serve.self]
    )

    /// As ArgumentParser's, except that usage errors exit with status 2 (the rule of every
    /// command: 0 all done, 1 some inputs failed, 2 usage or model error) instead of 64,
    /// darknet's single-dash spellings are refused with a hint, and `--version` says more.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--version"] {
            do { try StandardOutput.write(versionText()) } catch { Foundation.exit(conclude(error).rawValue) }
            Foundation.exit(0)
        }
        if let hint = DarknetSpelling.hint(for: arguments) {
            writeToStandardError("Error: \(hint)\n")
            Foundation.exit(Status.usage.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                writeToStandardError(fullMessage(for: error) + "\n")
                Foundation.exit(Status.usage.rawValue)
            }
            exit(withError: error)
        }
    }

    /// `darknet-swift 0.1.0 (commit abc1234)`, the Swift compiler that built it, the BLAS
    /// library and the kernel it runs, the packed kernel the engine drives (if any), and what
    /// `--precision int8` and `--gemm onednn` run on (oneDNN, its instruction set) or why they cannot.
    static func versionText() -> String {
        "darknet-swift \(version) (commit \(Machine.buildCommit()))\n"
            + "Swift: \(swiftVersion)\n"
            + "BLAS: \(BLAS.configuration.trimmingCharacters(in: .whitespaces)), core \(BLAS.coreName)\n"
            + (BLAS.coreNote.map { "BLAS core: \($0)\n" } ?? "")
            + "packed weights: \(BLAS.packedKernel ?? "none, cblas_sgemm only")\n"
            + "int8: \(int8Line)\n"
            + "gemm onednn: \(onednnLine)\n"
    }

    /// What `--gemm onednn` runs on, or why it cannot.
    private static var onednnLine: String {
        switch GEMMLibrary.onednnSupport {
        case .success(let support): support
        case .failure(.oneDNNUnavailable(let reason)): "unavailable: \(reason)"
        case .failure(let error): "unavailable: \(error)"
        }
    }

    /// What `--precision int8` runs on, or why it cannot.
    private static var int8Line: String {
        switch Precision.int8Support {
        case .success(let support): support
        case .failure(.unavailable(let reason)): "unavailable: \(reason)"
        case .failure(let error): "unavailable: \(error)"
        }
    }
}
