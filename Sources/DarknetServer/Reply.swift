import Foundation
import Hummingbird
import NIOCore

/// Responses as the routes build them: a body with its `Content-Type`, errors as
/// `ServerError.json` with `Retry-After` where the error has one.
package enum Reply {
    package static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        body(Array(text.utf8), type: "application/json", status: status)
    }

    package static func body(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok,
                             headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = type
        headers[.contentLength] = String(bytes.count)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    package static func error(_ error: ServerError) -> Response {
        var headers: HTTPFields = [:]
        if let retry = error.retryAfter { headers[.retryAfter] = String(retry) }
        return body(Array((error.json + "\n").utf8), type: "application/json",
                    status: HTTPResponse.Status(code: error.status), headers: headers)
    }
}
