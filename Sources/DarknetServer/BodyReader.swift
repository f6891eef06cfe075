import Hummingbird
import NIOCore

/// Reads a request body whole before any work starts, so a slow sender holds a connection
/// but never a place in a batch. Rules: a `Content-Length` above `limit` is refused before a
/// byte is read, a body that grows past `limit` as it streams likewise (`bodyTooLarge`, 413);
/// a body not complete within `timeout` seconds is `bodyTimeout` (408); a client that closes
/// its connection before its answer cancels the work (`whileConnected`).
package struct BodyReader: Sendable {
    package var limit: Int
    package var timeout: Double

    package init(limit: Int, timeout: Double) {
        self.limit = limit
        self.timeout = timeout
    }

    /// `operation` on the whole body, cancelled when the client closes its side of the
    /// connection (Hummingbird's `consumeWithCancellationOnInboundClose`): a queued job of a
    /// client that went away is dropped, never run. The connection closes after the answer.
    package func whileConnected<T: Sendable>(_ request: Request, _ operation: @escaping @Sendable (ByteBuffer) async throws -> T) async throws -> T {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw ServerError.bodyTooLarge(limit: limit)
        }
        return try await request.body.consumeWithCancellationOnInboundClose { body in
            try await operation(try await read(body))
        }
    }

    func read(_ body: RequestBody) async throws -> ByteBuffer {
        let limit = limit
        let timeout = timeout
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                do {
                    return try await body.collect(upTo: limit)
                } catch is NIOTooManyBytesError {
                    throw ServerError.bodyTooLarge(limit: limit)
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw ServerError.bodyTimeout(seconds: timeout)
            }
            return buffer
        }
    }
}
