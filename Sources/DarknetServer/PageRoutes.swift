import Hummingbird

/// `GET /`: the drop-a-photo page (`Page.html`, static HTML and JavaScript in the binary: no
/// build step, nothing fetched from elsewhere); `GET /metrics`: the Prometheus text.
package struct PageRoutes: Sendable {
    package let state: ServerState

    package func add(to router: Router<ServerContext>) {
        router.get("/") { _, _ in
            Reply.body(Array(Page.html.utf8), type: "text/html; charset=utf-8",
                       headers: [.contentSecurityPolicy: "default-src 'self'; img-src 'self' blob:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"])
        }
        router.get("/metrics") { _, _ in
            Reply.body(Array(state.metrics.text(models: state.names).utf8), type: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}
