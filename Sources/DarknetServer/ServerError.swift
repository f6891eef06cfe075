import CommandSupport
import Foundation

/// Every answer of the server that is not a success: an HTTP status, a stable machine code
/// (clients branch on it; docs/serve.md lists them) and a one-line message naming the field,
/// byte offset or limit at fault. A bad body or query is always one of these, never a 500;
/// only a fault of the engine itself is `inferenceFailed`.
package enum ServerError: Error, Equatable, CustomStringConvertible {
    /// 400: the body or a field of it is not what the route reads.
    case badRequest(String)
    /// 400: a query parameter (`thresh`, `nms`, `classes`, `format`) out of range or unknown.
    case badQuery(String)
    /// 400: the image could not be decoded (not JPEG/PNG, truncated, corrupt).
    case badImage(String)
    /// 400: an Open Inference Protocol tensor of the wrong name, type, shape or size.
    case badTensor(String)
    /// 401: a token is required and the request has none or another one.
    case unauthorized
    /// 404: no route, or no model of that name.
    case notFound(String)
    /// 405: the route exists for other methods.
    case methodNotAllowed(String)
    /// 408: the body did not arrive within the body timeout.
    case bodyTimeout(seconds: Double)
    /// 409: the model is of the other kind (`classify` on a detector, `detect` on a classifier).
    case wrongKind(String)
    /// 413: the body is larger than `--max-body-mb`.
    case bodyTooLarge(limit: Int)
    /// 415: the body is neither an image nor `multipart/form-data` holding one.
    case unsupportedMediaType(String)
    /// 422: the image has more pixels than the engine's limit (`--max-pixels`).
    case imageTooLarge(String)
    /// 500: the engine failed on a valid input (a bug: reported, never expected).
    case inferenceFailed(String)
    /// 503: the model's queue is full; `Retry-After` says when to try again.
    case queueFull(model: String, capacity: Int)
    /// 503: the server is loading or draining (`/v2/health/ready` is false).
    case notReady
    /// 499 (logged, never seen: nobody reads it): the client closed its connection while
    /// its job waited; the job was dropped.
    case clientClosed
    /// 504: the request's deadline passed before its answer was ready.
    case deadlineExceeded(milliseconds: Int)

    /// The stable code in the error body (`{"error": message, "code": code}`).
    package var code: String {
        switch self {
        case .badRequest: "bad_request"
        case .badQuery: "bad_query"
        case .badImage: "bad_image"
        case .badTensor: "bad_tensor"
        case .unauthorized: "unauthorized"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .bodyTimeout: "body_timeout"
        case .wrongKind: "wrong_model_kind"
        case .bodyTooLarge: "body_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .imageTooLarge: "image_too_large"
        case .inferenceFailed: "inference_failed"
        case .queueFull: "queue_full"
        case .notReady: "not_ready"
        case .deadlineExceeded: "deadline_exceeded"
        case .clientClosed: "client_closed"
        }
    }

    package var status: Int {
        switch self {
        case .badRequest, .badQuery, .badImage, .badTensor: 400
        case .unauthorized: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .bodyTimeout: 408
        case .wrongKind: 409
        case .bodyTooLarge: 413
        case .unsupportedMediaType: 415
        case .imageTooLarge: 422
        case .inferenceFailed: 500
        case .queueFull, .notReady: 503
        case .deadlineExceeded: 504
        case .clientClosed: 499
        }
    }

    package var description: String {
        switch self {
        case .badRequest(let message), .badQuery(let message), .badImage(let message), .badTensor(let message),
             .notFound(let message), .methodNotAllowed(let message), .wrongKind(let message),
             .unsupportedMediaType(let message), .imageTooLarge(let message), .inferenceFailed(let message):
            return message
        case .unauthorized: return "a bearer token is required (Authorization: Bearer TOKEN)"
        case .bodyTimeout(let seconds): return "the body did not arrive within \(seconds) s"
        case .bodyTooLarge(let limit): return "the body is larger than \(limit) bytes (--max-body-mb)"
        case .queueFull(let model, let capacity): return "model \(model): \(capacity) requests already queued"
        case .notReady: return "the server is loading or draining"
        case .deadlineExceeded(let milliseconds): return "no answer within the deadline of \(milliseconds) ms"
        case .clientClosed: return "the client closed the connection before its answer"
        }
    }

    /// Seconds a client should wait before retrying (`Retry-After`), for the 503s.
    package var retryAfter: Int? {
        switch self {
        case .queueFull: 1
        case .notReady: 5
        default: nil
        }
    }

    /// The JSON body: `{"error":"…","code":"…"}`; `error` is a string, as the Open Inference
    /// Protocol's error body has it, so its clients show the message.
    package var json: String {
        "{\"error\":\(JSONReport.quoted(description)),\"code\":\"\(code)\"}"
    }
}
