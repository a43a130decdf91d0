import Foundation
import Glibc
import Synchronization

/// A TCP server on 127.0.0.1 that answers HTTP requests with scripted raw bytes, for the
/// client's framing and connection handling: closes, stalls, endless bodies, garbage.
/// Blocking sockets on threads of their own, never on Swift's cooperative pool.
final class RawScriptServer: Sendable {
    /// What the server does with one request.
    enum Action: Sendable {
        /// Writes these bytes; closes the connection afterwards when `close`.
        case answer(String, close: Bool = false)
        /// Closes the connection without a byte of answer.
        case closeSilently
        /// Writes the head, then body bytes until the client goes away.
        case endlessBody(head: String)
        /// Writes these bytes, then waits without a word until the client goes away.
        case stall(after: String)
    }

    /// A request as received: which connection (0, 1, ...) and its rank on it (0, 1, ...).
    struct Arrival: Sendable, Hashable {
        var connection: Int
        var rank: Int
        var head: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    private let listener: Int32
    private let script: @Sendable (Arrival) -> Action
    private let state = Mutex(State())

    private struct State {
        var arrivals: [Arrival] = []
        var connections = 0
        var sockets: [Int32] = []
        var stopped = false
    }

    /// The requests received so far.
    var arrivals: [Arrival] { state.withLock { $0.arrivals } }
    /// Connections accepted so far.
    var connections: Int { state.withLock { $0.connections } }
    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Starts listening; `script` decides each answer.
    init(script: @escaping @Sendable (Arrival) -> Action) throws {
        self.script = script
        (listener, port) = try boundLoopbackSocket(listening: true)
        let server = self
        Thread.detachNewThread { server.acceptLoop() }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        // Under the lock, so that no connection closes (and frees its number) meanwhile.
        state.withLock { state in
            state.stopped = true
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let index: Int? = state.withLock { state in
                if state.stopped { return nil }
                state.sockets.append(connection)
                defer { state.connections += 1 }
                return state.connections
            }
            guard let index else {
                close(connection)
                return
            }
            Thread.detachNewThread { self.serve(connection, index: index) }
        }
    }

    private func serve(_ socket: Int32, index: Int) {
        defer {
            // Forget it before closing: `stop()` must never shut a number another test reuses.
            state.withLock { $0.sockets.removeAll { $0 == socket } }
            close(socket)
        }
        var buffer: [UInt8] = []
        var rank = 0
        while let head = readRequest(socket, buffer: &buffer) {
            let arrival = Arrival(connection: index, rank: rank, head: head)
            state.withLock { $0.arrivals.append(arrival) }
            rank += 1
            switch script(arrival) {
            case .answer(let bytes, let close):
                guard write(socket, bytes), !close else { return }
            case .closeSilently:
                return
            case .endlessBody(let head):
                guard write(socket, head) else { return }
                let chunk = "4000\r\n" + String(repeating: "x", count: 0x4000) + "\r\n"
                while write(socket, chunk) {}
                return
            case .stall(let bytes):
                guard write(socket, bytes) else { return }
                var byte: UInt8 = 0
                while recv(socket, &byte, 1, 0) > 0 {}
                return
            }
        }
    }

    /// Reads one request (head and a `Content-Length` body); returns its head, or nil at the end.
    private func readRequest(_ socket: Int32, buffer: inout [UInt8]) -> String? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: separator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                var length = 0
                for line in head.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
                while buffer.count < end.upperBound + length {
                    guard fill(socket, &buffer) else { return nil }
                }
                buffer.removeSubrange(..<(end.upperBound + length))
                return head
            }
            guard fill(socket, &buffer) else { return nil }
        }
    }

    private func fill(_ socket: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func write(_ socket: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }
}
