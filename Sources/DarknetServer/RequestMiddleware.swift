import Dispatch
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// What every request goes through, outermost first:
/// - counted in `ServerState.requestsInFlight` until it is answered;
/// - one log line when it ends (method, route, status, code, milliseconds, bytes in, the
///   error's message when it failed), and
///   `ServerMetrics.request` by route and status;
/// - errors become JSON answers (`ServerError.json`): a `ServerError` as it is, Hummingbird's
///   own (no route: `not_found`; a body past the limit: `body_too_large`; a body cut off by
///   the client: `client_closed`) mapped to ours,
///   anything else `inference_failed` (500) with its message;
/// - with a token, every route but `/v2/health/*` requires `Authorization: Bearer TOKEN`
///   (compared in constant time).
package struct RequestMiddleware: RouterMiddleware {
    package typealias Context = ServerContext
    package let metrics: ServerMetrics
    package let state: ServerState
    package let logger: Logger
    package let token: String?
    /// `--max-body-mb` in bytes, for the 413 Hummingbird raises itself.
    package let bodyLimit: Int

    package func handle(_ request: Request, context: ServerContext,
                        next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        state.requestBegan()
        defer { state.requestEnded() }
        let response: Response
        var code = "-"
        var message: String?
        do {
            try authorize(request)
            response = try await next(request, context)
        } catch {
            let failure = serverError(error)
            code = failure.code
            message = failure.description
            response = Reply.error(failure)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let route = context.endpointPath ?? "unmatched"
        metrics.request(route: route, status: response.status.code, seconds: seconds)
        var metadata: Logger.Metadata = [
            "method": "\(request.method)", "route": "\(route)", "status": "\(response.status.code)", "code": "\(code)",
            "ms": "\(Int(seconds * 1000))", "bytes_in": "\(request.headers[.contentLength] ?? "-")",
        ]
        if let message { metadata["error"] = "\(message)" }
        logger.info("request", metadata: metadata)
        return response
    }

    private func authorize(_ request: Request) throws(ServerError) {
        guard let token, !request.uri.path.hasPrefix("/v2/health/") else { return }
        let given = request.headers[.authorization] ?? ""
        let expected = "Bearer " + token
        // Constant time over the expected length: the comparison says nothing of how much matched.
        var difference = UInt8(given.utf8.count == expected.utf8.count ? 0 : 1)
        for (a, b) in zip(given.utf8, expected.utf8) { difference |= a ^ b }
        if difference != 0 { throw .unauthorized }
    }

    /// Any error thrown by a route as the server's error.
    func serverError(_ error: Error) -> ServerError {
        switch error {
        case let failure as ServerError: return failure
        case is CancellationError: return .clientClosed
        case let http as HTTPError:
            switch http.status {
            case .notFound: return .notFound("no route for this method and path")
            case .methodNotAllowed: return .methodNotAllowed("this route does not take this method")
            case .contentTooLarge: return .bodyTooLarge(limit: bodyLimit)
            default: return .badRequest(http.body ?? "\(http.status)")
            }
        case is NIOTooManyBytesError: return .bodyTooLarge(limit: bodyLimit)
        // The client closed its connection before its body was all sent.
        case let parser as HTTPParserError where parser == .invalidEOFState || parser == .closedConnection: return .clientClosed
        case let parser as HTTPParserError: return .badRequest("the request is not valid HTTP: \(parser)")
        default: return .inferenceFailed("\(error)")
        }
    }
}
