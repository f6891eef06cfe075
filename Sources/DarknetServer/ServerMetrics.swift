import CoreMetrics
import Dispatch
import Foundation
import Prometheus

/// The server's measurements, through swift-metrics' handlers on a Prometheus registry of its own
/// (no process-wide bootstrap), emitted as the
/// Prometheus text format by `GET /metrics`:
/// - `darknet_requests_total{route,status}` and `darknet_request_duration_seconds{route}`
///   (a histogram), one of each per answered request; `route` is the route's pattern
///   (`/v1/models/{name}/detect`), never the raw path, so clients cannot create series;
/// - `darknet_queue_depth{model}` (jobs waiting), `darknet_batch_size{model}` (a histogram of
///   the forward passes' batch sizes), `darknet_images_total{model}`,
///   `darknet_images_per_second{model}` (over the last `rateWindow` seconds, computed at each
///   scrape) and `darknet_dropped_total{model,reason}` (cancelled or expired jobs);
/// - `darknet_ready` (1 while ready, 0 while loading or draining).
package final class ServerMetrics: @unchecked Sendable {
    package let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let lock = NSLock()
    /// Completed images per model: (uptime nanoseconds, count), the last `rateWindow` seconds.
    private var recent: [String: [(time: UInt64, count: Int)]] = [:]
    package static let rateWindow = 10.0

    package init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["darknet_request_duration_seconds"] =
            [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30].map { Duration.milliseconds(Int($0 * 1000)) }
        factory.valueHistogramBuckets["darknet_batch_size"] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
        self.factory = factory
    }

    package func request(route: String, status: Int, seconds: Double) {
        factory.makeCounter(label: "darknet_requests_total", dimensions: [("route", route), ("status", String(status))])
            .increment(by: 1)
        factory.makeTimer(label: "darknet_request_duration_seconds", dimensions: [("route", route)])
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    package func queueDepth(model: String, _ depth: Int) {
        factory.makeMeter(label: "darknet_queue_depth", dimensions: [("model", model)]).set(Int64(depth))
    }

    package func batch(model: String, size: Int) {
        factory.makeRecorder(label: "darknet_batch_size", dimensions: [("model", model)], aggregate: true).record(Int64(size))
    }

    package func images(model: String, count: Int) {
        factory.makeCounter(label: "darknet_images_total", dimensions: [("model", model)]).increment(by: Int64(count))
        let now = DispatchTime.now().uptimeNanoseconds
        lock.withLock { recent[model, default: []].append((now, count)) }
    }

    package func dropped(model: String, reason: String) {
        factory.makeCounter(label: "darknet_dropped_total", dimensions: [("model", model), ("reason", reason)]).increment(by: 1)
    }

    package func ready(_ ready: Bool) {
        factory.makeMeter(label: "darknet_ready", dimensions: []).set(Int64(ready ? 1 : 0))
    }

    /// The Prometheus text: every metric, the images-per-second gauges computed first.
    package func text(models: [String]) -> String {
        let now = DispatchTime.now().uptimeNanoseconds
        let horizon = now - min(now, UInt64(Self.rateWindow * 1e9))
        let rates: [(String, Double)] = lock.withLock {
            models.map { model in
                let kept = (recent[model] ?? []).filter { $0.time > horizon }
                recent[model] = kept
                return (model, Double(kept.reduce(0) { $0 + $1.count }) / Self.rateWindow)
            }
        }
        for (model, rate) in rates {
            factory.makeMeter(label: "darknet_images_per_second", dimensions: [("model", model)]).set(Double(rate) as Double)
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
