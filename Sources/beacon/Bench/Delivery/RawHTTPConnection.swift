import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One kept-alive HTTP/1.1 connection to 127.0.0.1 with blocking calls and nothing else:
/// the least a client can do per request, for the raw-POST baselines. Run it on a thread
/// of its own, never on Swift's cooperative pool.
final class RawHTTPConnection {
    /// A response: the status and the body (read by `Content-Length`).
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    private let socket: Int32
    private let port: Int
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`, with Nagle's algorithm off (as AsyncHTTPClient does);
    /// with `timeoutSeconds`, a send or receive that waits longer fails.
    init(port: Int, timeoutSeconds: Int? = nil) throws {
        guard (1...65_535).contains(port) else { throw CLIError.runtime("bench: port \(port) is not in 1...65535") }
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)  // checked: 1...65535 above
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = Self.failure("connect to 127.0.0.1:\(port)")
            close(descriptor)
            throw error
        }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let timeoutSeconds {
            var limit = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        socket = descriptor
        self.port = port
    }

    deinit { close(socket) }

    /// Posts `body` to `path` and reads the whole response.
    func post(_ path: String, body: [UInt8], gzip: Bool) throws -> Response {
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
        if gzip { head += "Content-Encoding: gzip\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse()
    }

    /// Gets `path` and reads the whole response.
    func get(_ path: String) throws -> Response {
        try send(Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        return try readResponse()
    }

    private func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Self.failure("send") }
            sent += count
        }
    }

    private func readResponse() throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.firstRange(of: separator)?.lowerBound
            if headEnd == nil { try fill() }
        }
        guard let headEnd else { throw CLIError.runtime("bench: no response head") }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw CLIError.runtime("bench: malformed status line \(lines.first.map(String.init) ?? "")")
        }
        var length: Int?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if parts[0].lowercased() == "content-length" { length = Int(parts[1].trimmingCharacters(in: .whitespaces)) }
        }
        guard let length, (0...(64 << 20)).contains(length) else {
            throw CLIError.runtime("bench: the response has no usable Content-Length (status \(status))")
        }
        let bodyStart = headEnd + separator.count
        while buffer.count < bodyStart + length { try fill() }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeSubrange(..<(bodyStart + length))
        return Response(status: status, body: body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? CLIError.runtime("bench: the collector closed the connection") : Self.failure("recv") }
            buffer.append(contentsOf: chunk[..<count])
            return
        }
    }

    private static func failure(_ call: String) -> CLIError {
        CLIError.runtime("bench: \(call) failed: \(String(cString: strerror(errno)))")
    }
}
