import Foundation

/// What the server is doing and which models it has, shared by every route. Rules: the
/// server listens from the start, while its models load; it is ready (`/v2/health/ready`
/// 200) once every model has loaded and until it starts draining; a model answers only
/// once loaded and while the server is not draining; a name is looked up in this table,
/// never used to open a file.
package final class ServerState: @unchecked Sendable {
    package enum Phase: String, Sendable {
        case loading, ready, draining
    }

    private let lock = NSLock()
    private var phase = Phase.loading
    private var models: [String: ServedModel] = [:]
    private var requests = 0
    /// Names given on the command line, in their order, loaded or not.
    package let names: [String]
    package let metrics: ServerMetrics

    package init(names: [String], metrics: ServerMetrics) {
        self.names = names
        self.metrics = metrics
        metrics.ready(false)
    }

    package var current: Phase { lock.withLock { phase } }

    /// Requests begun and not yet answered (`RequestMiddleware`): what a drain timeout abandons.
    package var requestsInFlight: Int { lock.withLock { requests } }

    package func requestBegan() { lock.withLock { requests += 1 } }

    package func requestEnded() { lock.withLock { requests -= 1 } }

    package var isReady: Bool { current == .ready }

    package func add(_ model: ServedModel) {
        lock.withLock { models[model.name] = model }
    }

    /// Every model has loaded: ready, unless already draining.
    package func loaded() {
        lock.withLock { if phase == .loading { phase = .ready } }
        metrics.ready(isReady)
    }

    /// Not ready from now on; every queue stops taking jobs (those waiting still run).
    package func drain() -> [ServedModel] {
        let all: [ServedModel] = lock.withLock {
            phase = .draining
            return Array(models.values)
        }
        metrics.ready(false)
        for model in all { model.queue.close() }
        return all
    }

    /// The loaded models, in command-line order.
    package var loadedModels: [ServedModel] {
        lock.withLock { names.compactMap { models[$0] } }
    }

    /// The model named `name`: `notFound` for a name not served, `notReady` while it loads
    /// or the server drains.
    package func model(_ name: String) throws(ServerError) -> ServedModel {
        guard names.contains(name) else { throw .notFound("no model named \"\(name)\" (GET /v2/models lists them)") }
        let found: ServedModel? = lock.withLock { phase == .draining ? nil : models[name] }
        guard let found else { throw .notReady }
        return found
    }

    /// Whether `name` is loaded and the server not draining (`/v2/models/{name}/ready`).
    package func isModelReady(_ name: String) -> Bool {
        lock.withLock { models[name] != nil && phase != .draining }
    }
}
