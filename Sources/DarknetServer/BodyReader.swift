import Hummingbird
import NIOCore

/// Reads a request body whole before any work starts, so a slow sender holds a connection
/// but never a place in a batch. Rules: a `Content-Length` above `limit` is refused before a
/// byte is read, a body that grows past `limit` as it streams likewise (`bodyTooLarge`, 413);
/// a body not complete within `timeout` seconds is `bodyTimeout` (408).
package struct BodyReader: Sendable {
    package var limit: Int
    package var timeout: Double

    package init(limit: Int, timeout: Double) {
        self.limit = limit
        self.timeout = timeout
    }

    package func read(_ request: Request) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw ServerError.bodyTooLarge(limit: limit)
        }
        let body = request.body
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
