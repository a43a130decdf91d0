import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP server on 127.0.0.1 that answers every request with the same bytes: the
/// head at once, then the body `chunk` bytes at a time with `pause` between writes. With a
/// pause of one second it is the peer that trickles a response; with `.zero` it answers at
/// once (a scripted status and body, escape sequences included, for output tests).
///
/// It runs on threads of its own (never the cooperative pool), so its pauses hold up
/// nothing else.
///
/// ```swift
/// let server = try TricklingHTTPServer(head: TricklingHTTPServer.head(status: 200, length: 40),
///                                      body: Array(repeating: 0x20, count: 40), pause: .seconds(1))
/// defer { server.stop() }
/// // GET server.url + "/v1/config" takes 40 s to arrive whole
/// ```
public final class TricklingHTTPServer: Sendable {
    /// Why the server could not start.
    public struct StartError: Error, CustomStringConvertible {
        public var call: String
        public var code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// The port it listens on.
    public let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let served = Atomic<Int>(0)

    /// Listens on a free loopback port and serves until ``stop()``.
    public init(head: [UInt8], body: [UInt8], chunk: Int = 1, pause: Duration) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw StartError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw StartError(call: "bind/listen", code: code)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        let pauseMicroseconds = UInt32(clamping: pause.components.seconds * 1_000_000 + pause.components.attoseconds / 1_000_000_000_000)
        let step = max(1, chunk)
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 {
                    if errno == EINTR { continue }
                    return  // the listener was shut down by stop()
                }
                served.add(1, ordering: .relaxed)
                Thread.detachNewThread { [self] in
                    defer { close(connection) }
                    Self.readHead(connection)
                    guard Self.send(head, to: connection) else { return }
                    var offset = 0
                    while offset < body.count, !stopped.load(ordering: .acquiring) {
                        if offset > 0, pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
                        let end = min(body.count, offset + step)
                        guard Self.send(Array(body[offset..<end]), to: connection) else { return }
                        offset = end
                    }
                }
            }
        }
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Connections accepted so far.
    public var connections: Int { served.load(ordering: .relaxed) }

    /// Stops accepting; connections being served end after their current pause.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    /// A response head: status line, `Content-Length`, JSON content type, `Connection: close`.
    public static func head(status: Int, length: Int) -> [UInt8] {
        Array("HTTP/1.1 \(status) Scripted\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    /// Reads until the end of the request head (or the peer stops sending).
    private static func readHead(_ connection: Int32) {
        var seen: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while seen.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            seen.append(contentsOf: buffer[0..<count])
            if seen.firstRange(of: [13, 10, 13, 10]) != nil { return }
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    private static func send(_ bytes: [UInt8], to connection: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
