import ArgumentParser
import CommandSupport
import DarknetServer
import Foundation
import Logging

/// `darknet-swift-serve` (also run as `darknet-swift serve`): detection and classification
/// over HTTP. The options and their defaults are docs/serve.md's; the batching defaults are
/// the ones docs/performance.md measured.
@main
struct Serve: AsyncParsableCommand {
    /// As ArgumentParser's, except that usage errors exit with status 2, as every
    /// `darknet-swift` command's do (0 done, 2 usage or model error).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                writeToStandardError(fullMessage(for: error) + "\n")
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "darknet-swift-serve",
        abstract: "Serve models over HTTP: detect, classify, the Open Inference Protocol (v2), metrics and a page.",
        discussion: """
        Routes: POST /v1/models/NAME/detect and /classify (a JPEG or PNG, raw or multipart; \
        detect's JSON), the Open Inference Protocol under /v2 (health, metadata, infer with JSON \
        or binary tensors), GET /metrics (Prometheus) and GET / (a page to drop a photo on). \
        Listens on 127.0.0.1 unless --host says otherwise; SIGTERM drains and exits 0.

        EXAMPLES:
          darknet-swift serve --model yolo=yolov3-tiny.cfg,yolov3-tiny.weights,coco.names
          darknet-swift serve --model yolo=y.cfg,y.weights --model net=d.cfg,d.weights,imagenet.shortnames.list --port 9000
          curl -F image=@dog.jpg 'http://127.0.0.1:8080/v1/models/yolo/detect?thresh=0.3'
        """
    )

    @Option(name: .customLong("model"), help: ArgumentHelp(
        "A model to serve: NAME=CFG,WEIGHTS[,NAMES] (NAMES: a names file or a .data file); repeat for more.",
        valueName: "name=cfg,weights[,names]"))
    var models: [String] = []

    @Option(help: "Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface).")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: a free one; the line 'listening on' names it).")
    var port = 8080

    @Option(help: "Most images per forward pass when requests arrive together (1: no batching).")
    var maxBatch = ServerSettings().queue.maxBatch

    @Option(help: "Milliseconds the first request of a batch waits for others (with --max-batch > 1).")
    var batchWindowMs = ServerSettings().queue.windowMilliseconds

    @Option(help: "Requests a model may hold waiting; more are answered 503 with Retry-After.")
    var queue = ServerSettings().queue.capacity

    @Option(help: "Largest request body in MiB (413 past it).")
    var maxBodyMb = ServerSettings().maxBodyBytes >> 20

    @Option(help: "Seconds a request body may take to arrive (408 past it).")
    var bodyTimeout = ServerSettings().bodyTimeout

    @Option(help: "Largest image in pixels (422 past it; the engine's limit by default).")
    var maxPixels = ServerSettings().maxPixels

    @Option(help: "Milliseconds from a request's arrival to its answer (504 past it).")
    var deadlineMs = ServerSettings().deadlineMilliseconds

    @Option(help: "Seconds SIGTERM waits for accepted requests before exiting anyway (status 1).")
    var drainSeconds = ServerSettings().drainSeconds

    @Option(help: ArgumentHelp("Milliseconds slept before each forward pass (tests of queueing and draining).", visibility: .private))
    var testPassDelayMs = 0

    @Option(help: "A file holding the bearer token every route but /v2/health requires.")
    var tokenFile: String?

    @OptionGroup var size: SizeOption<DetectorSize>

    @OptionGroup var engine: EngineOptions

    @OptionGroup var strict: StrictOption

    func validate() throws {
        if models.isEmpty { throw ValidationError("give at least one --model NAME=CFG,WEIGHTS[,NAMES]") }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be in 0...65535, got \(port)") }
        guard (1...64).contains(maxBatch) else { throw ValidationError("--max-batch must be in 1...64, got \(maxBatch)") }
        guard batchWindowMs >= 0, batchWindowMs <= 10_000 else { throw ValidationError("--batch-window-ms must be in 0...10000, got \(batchWindowMs)") }
        guard (1...100_000).contains(queue) else { throw ValidationError("--queue must be in 1...100000, got \(queue)") }
        guard (1...1024).contains(maxBodyMb) else { throw ValidationError("--max-body-mb must be in 1...1024, got \(maxBodyMb)") }
        guard bodyTimeout > 0 else { throw ValidationError("--body-timeout must be > 0, got \(bodyTimeout)") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be ≥ 1, got \(maxPixels)") }
        guard deadlineMs >= 1 else { throw ValidationError("--deadline-ms must be ≥ 1, got \(deadlineMs)") }
        guard (0...60_000).contains(testPassDelayMs) else { throw ValidationError("--test-pass-delay-ms must be in 0...60000") }
        guard drainSeconds > 0 else { throw ValidationError("--drain-seconds must be > 0, got \(drainSeconds)") }
    }

    func run() async throws {
        let specs: [ModelSpec]
        do {
            specs = try models.map { try ModelSpec(parsing: $0) }
            if let repeated = Dictionary(grouping: specs, by: \.name).first(where: { $0.value.count > 1 })?.key {
                throw ValidationError("--model: the name \"\(repeated)\" is given twice")
            }
        } catch let error as ModelSpec.ParseError {
            throw ValidationError(error.description)
        }
        var settings = ServerSettings()
        settings.host = host
        settings.port = port
        settings.queue = QueueSettings(capacity: queue, maxBatch: maxBatch, windowMilliseconds: batchWindowMs,
                                       passDelayMilliseconds: testPassDelayMs)
        settings.maxBodyBytes = maxBodyMb << 20
        settings.bodyTimeout = bodyTimeout
        settings.maxPixels = maxPixels
        settings.deadlineMilliseconds = deadlineMs
        settings.drainSeconds = drainSeconds
        do {
            settings.token = try tokenFile.map(TokenFile.read)
        } catch {
            writeToStandardError("darknet-swift-serve: error: \(error)\n")
            throw ExitCode(2)
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "darknet-swift-serve")
        logger.logLevel = .info
        let options = ModelOptions(size: size.size, strict: strict.strict, threads: engine.threads,
                                   convolutionAlgorithm: engine.convolutionAlgorithm, gemm: engine.gemm)
        do {
            try await Server(specs: specs, options: options, settings: settings, logger: logger).run()
        } catch {
            writeToStandardError("darknet-swift-serve: error: \(error)\n")
            throw ExitCode(2)
        }
    }
}
