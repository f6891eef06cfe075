#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `stream --http [HOST:]PORT`: AlexeyAB's `-mjpeg_port` and `-json_port` habit on one port,
/// while the source runs. Plain sockets and a thread per client (at most `maximumClients`;
/// more get 503): `stream` stays free of SwiftNIO, which only `darknet-swift-serve` builds.
///
/// Routes (GET only; anything else 405, unknown paths 404):
/// - `/mjpeg`: the annotated frames as `multipart/x-mixed-replace` (what darknet's
///   `-mjpeg_port` sends, what browsers and `ffplay`/VLC show), each client getting the newest
///   frame when it is ready for one: a slow client skips frames, it never slows the engine;
/// - `/json`: the newest frame's JSON record (stream's JSON line), 503 before the first;
/// - `/`: a page showing both.
///
/// A client that sends nothing for 5 s, or takes more than 5 s to accept a frame, is dropped.
final class PreviewServer: @unchecked Sendable {
    enum Error: Swift.Error, CustomStringConvertible {
        case badAddress(String)
        case listen(String, reason: String)

        var description: String {
            switch self {
            case .badAddress(let value): return "--http \(value): expected PORT or HOST:PORT (an IPv4 address, PORT 1…65535)"
            case .listen(let address, let reason): return "--http: cannot listen on \(address): \(reason)"
            }
        }
    }

    static let maximumClients = 8
    static let boundary = "darknetswiftframe"

    let address: String
    private let listener: Int32
    private let lock = NSCondition()
    private var jpeg: [UInt8]?
    private var json: String?
    private var sequence = 0
    private var stopped = false
    private var clients: Set<Int32> = []
    private var acceptThread: Thread?

    /// Parses `PORT` (on 127.0.0.1) or `HOST:PORT`, binds and listens; `serve()` starts accepting.
    init(_ value: String) throws {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        let host = parts.count == 2 ? String(parts[0]) : "127.0.0.1"
        guard (1...2).contains(parts.count), let port = UInt16(parts[parts.count - 1]), port > 0 else { throw Error.badAddress(value) }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &socketAddress.sin_addr) == 1 else { throw Error.badAddress(value) }
        address = "\(host):\(port)"
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Error.listen(address, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Error.listen(address, reason: reason)
        }
        listener = fd
    }

    /// Starts the accepting thread.
    func serve() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "http"
        acceptThread = thread
        thread.start()
    }

    /// The newest frame: its annotated JPEG (nil: keep the last one) and its JSON record.
    func publish(jpeg: [UInt8]?, json: String) {
        lock.withLock {
            if let jpeg { self.jpeg = jpeg }
            self.json = json
            sequence += 1
            lock.broadcast()
        }
    }

    /// Stops accepting and ends every connection.
    func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
            lock.broadcast()
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let admitted: Bool = lock.withLock {
                guard !stopped, clients.count < Self.maximumClients else { return false }
                clients.insert(client)
                return true
            }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard admitted else {
                _ = deliver(client, Self.response(503, "text/plain", Array("busy: \(Self.maximumClients) clients already\n".utf8),
                                               extra: "Retry-After: 1\r\n"))
                close(client)
                continue
            }
            let thread = Thread { [self] in
                handle(client)
                lock.withLock { _ = clients.remove(client) }
                close(client)
            }
            thread.name = "http client"
            thread.start()
        }
    }

    /// Reads the request head and answers it.
    private func handle(_ client: Int32) {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while !head.contains(sequence: [13, 10, 13, 10]) && !head.contains(sequence: [10, 10]) {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { return }
            head += buffer[0..<count]
            if head.count > 16_384 {
                _ = deliver(client, Self.response(431, "text/plain", Array("request head over 16 KiB\n".utf8)))
                return
            }
        }
        let firstLine = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self).split(separator: " ")
        guard firstLine.count == 3, firstLine[2].hasPrefix("HTTP/") else {
            _ = deliver(client, Self.response(400, "text/plain", Array("expected: GET PATH HTTP/1.1\n".utf8)))
            return
        }
        let path = firstLine[1].split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        guard firstLine[0] == "GET" else {
            _ = deliver(client, Self.response(405, "text/plain", Array("only GET\n".utf8), extra: "Allow: GET\r\n"))
            return
        }
        switch path {
        case "/mjpeg": streamFrames(to: client)
        case "/json":
            let record = lock.withLock { json }
            if let record {
                _ = deliver(client, Self.response(200, "application/json", Array(record.utf8)))
            } else {
                _ = deliver(client, Self.response(503, "application/json", Array("{\"error\":\"no frame yet\"}\n".utf8),
                                               extra: "Retry-After: 1\r\n"))
            }
        case "/": _ = deliver(client, Self.response(200, "text/html; charset=utf-8", Array(Self.page.utf8)))
        default: _ = deliver(client, Self.response(404, "text/plain", Array("no such path: \(path) (try /mjpeg, /json or /)\n".utf8)))
        }
    }

    /// Sends the newest frame each time there is a newer one, until the client or the run ends.
    private func streamFrames(to client: Int32) {
        let header = "HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=\(Self.boundary)\r\n"
            + "Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
        guard deliver(client, Array(header.utf8)) else { return }
        var sent = 0
        while true {
            let frame: [UInt8]? = lock.withLock {
                while !stopped && (sequence == sent || jpeg == nil) { lock.wait() }
                if stopped { return nil }
                sent = sequence
                return jpeg
            }
            guard let frame else { return }
            let part = "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(frame.count)\r\n\r\n"
            guard deliver(client, Array(part.utf8) + frame + [13, 10]) else { return }
        }
    }

    /// Writes all of `bytes`; false when the client is gone or too slow (SO_SNDTIMEO).
    private func deliver(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let written = bytes.withUnsafeBytes { send(client, $0.baseAddress! + offset, $0.count - offset, flags) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    static func response(_ status: Int, _ type: String, _ body: [UInt8], extra: String = "") -> [UInt8] {
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
                      431: "Request Header Fields Too Large", 503: "Service Unavailable"][status] ?? ""
        let head = "HTTP/1.0 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-cache\r\nConnection: close\r\n\(extra)\r\n"
        return Array(head.utf8) + body
    }

    static let page = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>darknet-swift stream</title>
        <style>body{font-family:sans-serif;margin:1em}img{max-width:100%}pre{white-space:pre-wrap}</style></head>
        <body><img src="/mjpeg" alt="annotated frames"><pre id="json"></pre>
        <script>
        async function poll() {
          try { const r = await fetch('/json'); document.getElementById('json').textContent = await r.text(); } catch (e) {}
          setTimeout(poll, 1000);
        }
        poll();
        </script></body></html>

        """
}

extension Array where Element == UInt8 {
    fileprivate func contains(sequence: [UInt8]) -> Bool {
        guard count >= sequence.count else { return false }
        return (0...(count - sequence.count)).contains { start in self[start..<(start + sequence.count)].elementsEqual(sequence) }
    }
}
