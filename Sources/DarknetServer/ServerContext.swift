import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's core context plus the connection's
/// channel, so a handler waiting for the engine learns when its client goes away
/// (`channel.closeFuture`) and drops the queued job.
package struct ServerContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
