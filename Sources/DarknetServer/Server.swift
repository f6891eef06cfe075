import CommandSupport
import Dispatch
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The `serve` process: listens at once (`/v2/health/live` answers while the models load),
/// loads the models one after another on a thread of its own, then is ready.
///
/// SIGTERM or SIGINT (`DrainService`): not ready from that moment, the queues take no new
/// job (503 `not_ready`) and run what they hold, then the listener closes and the requests
/// in flight are answered; the process exits 0. `drainSeconds` after the first signal it
/// exits 1 whatever is still running (`DrainDeadline`), logging how many requests it abandons.
package struct Server: Sendable {
    package let specs: [ModelSpec]
    package let options: ModelOptions
    package let settings: ServerSettings
    package let logger: Logger

    package init(specs: [ModelSpec], options: ModelOptions, settings: ServerSettings, logger: Logger) {
        self.specs = specs
        self.options = options
        self.settings = settings
        self.logger = logger
    }

    /// The routes' paths with the method each takes: asked with another method, a path is 405
    /// `method_not_allowed` (Hummingbird's router alone answers 404 for it).
    static let methods: [(path: String, method: HTTPRequest.Method)] = [
        ("/v1/models/:name/detect", .post), ("/v1/models/:name/classify", .post),
        ("/v2/models/:name/infer", .post), ("/v2/models/:name/versions/:version/infer", .post),
        ("/v2/health/live", .get), ("/v2/health/ready", .get), ("/v2", .get), ("/v2/models", .get),
        ("/v2/models/:name", .get), ("/v2/models/:name/ready", .get), ("/", .get), ("/metrics", .get),
    ]

    static func refuseOtherMethods(on router: Router<ServerContext>) {
        for (path, method) in methods {
            for other in [HTTPRequest.Method.get, .post, .put, .delete, .patch] where other != method {
                router.on(RouterPath(path), method: other) { _, _ -> Response in
                    throw ServerError.methodNotAllowed("\(path) takes \(method.rawValue), not \(other.rawValue)")
                }
            }
        }
    }

    /// Runs until drained; throws when the address cannot be bound.
    package func run() async throws {
        let metrics = ServerMetrics()
        let state = ServerState(names: specs.map(\.name), metrics: metrics)
        let router = Router(context: ServerContext.self)
        router.add(middleware: RequestMiddleware(metrics: metrics, state: state, logger: logger, token: settings.token,
                                                 bodyLimit: settings.maxBodyBytes))
        let reader = BodyReader(limit: settings.maxBodyBytes, timeout: settings.bodyTimeout)
        let runner = JobRunner(settings: settings)
        DetectRoutes(state: state, reader: reader, runner: runner).add(to: router)
        InferenceRoutes(state: state, reader: reader, runner: runner).add(to: router)
        PageRoutes(state: state).add(to: router)
        Self.refuseOtherMethods(on: router)
        let host = settings.host
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: settings.port), serverName: "darknet-swift"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("darknet-swift-serve: listening on http://\(host):\(port)\n".utf8))
            },
            logger: logger
        )
        startLoading(into: state)
        let deadline = DrainDeadline(seconds: settings.drainSeconds, state: state, logger: logger)
        defer { deadline.cancel() }
        let drain = DrainService(state: state, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app, drain], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
    }

    /// Loads each model on a thread of its own (a cfg or weights error ends the process with
    /// status 2 and the one-line error, as the CLI's commands do).
    private func startLoading(into state: ServerState) {
        let specs = specs, options = options, settings = settings, logger = logger
        let thread = Thread {
            for spec in specs {
                do {
                    let start = DispatchTime.now().uptimeNanoseconds
                    let model = try ServedModel(spec, options: options, queue: settings.queue, metrics: state.metrics)
                    state.add(model)
                    logger.info("model loaded", metadata: [
                        "model": "\(spec.name)", "kind": "\(model.kind)",
                        "ms": "\((DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)",
                    ])
                } catch {
                    writeToStandardError("darknet-swift-serve: error: model \(spec.name): \(error)\n")
                    exit(2)
                }
            }
            state.loaded()
            logger.info("ready", metadata: ["models": "\(specs.count)"])
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

/// The first service to hear SIGTERM (the service group stops services in reverse order):
/// marks the server draining, waits until every queue has run what it held, then lets the
/// HTTP server stop.
struct DrainService: Service {
    let state: ServerState
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let models = state.drain()
        logger.info("draining", metadata: ["waiting": "\(models.reduce(0) { $0 + $1.queue.depth })",
                                           "requests": "\(state.requestsInFlight)"])
        while !models.allSatisfy(\.queue.drained) {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        logger.info("drained")
    }
}

/// The bound on draining: `seconds` after the first SIGTERM or SIGINT the process exits 1,
/// logging how many requests it abandons. It hears the signal on a dispatch queue of its own
/// and waits on a thread of its own, never on Swift's cooperative pool, and reads only the
/// request count: a request stuck on the pool or holding a queue's lock cannot keep the
/// process alive (`_exit`, so that no exit handler can wait on such a thread either).
/// Dispatch sources are thread-safe; `sources` is never mutated.
final class DrainDeadline: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(seconds: Double, state: ServerState, logger: Logger) {
        let queue = DispatchQueue(label: "darknet-swift-serve drain deadline")
        // Read and written on `queue` only.
        nonisolated(unsafe) var started = false
        sources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler {
                guard !started else { return }
                started = true
                let watchdog = Thread {
                    Thread.sleep(forTimeInterval: seconds)
                    logger.error("drain timeout: exiting with requests unanswered", metadata: [
                        "seconds": "\(seconds)", "abandoned": "\(state.requestsInFlight)",
                    ])
                    _exit(1)
                }
                watchdog.start()
            }
            source.resume()
            return source
        }
    }

    /// Stops listening (the server has stopped); a watchdog already started still runs.
    func cancel() {
        for source in sources { source.cancel() }
    }
}
