/// The server's settings as values (`serve`'s options; docs/serve.md states the defaults
/// and docs/performance.md how the batching ones were chosen).
package struct ServerSettings: Sendable {
    package var host = "127.0.0.1"
    /// 0: a free port, printed when listening.
    package var port = 8080
    package var queue = QueueSettings(capacity: 64, maxBatch: 1, windowMilliseconds: 0)
    /// Largest request body, bytes.
    package var maxBodyBytes = 16 << 20
    /// Seconds a body may take to arrive.
    package var bodyTimeout = 30.0
    /// Largest decoded image, pixels (the engine's limit unless lowered).
    package var maxPixels = 100_000_000
    /// Milliseconds from a request's arrival to its answer before it is `deadlineExceeded`.
    package var deadlineMilliseconds = 30_000
    /// Seconds SIGTERM waits for accepted work before the process exits anyway.
    package var drainSeconds = 30.0
    /// The bearer token every route but the health probes requires; nil: none.
    package var token: String?

    package init() {}
}
