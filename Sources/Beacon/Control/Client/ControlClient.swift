import BeaconWire
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Talks to the engine that serves a store's control channel.
///
/// ```swift
/// let client = ControlClient(store: "beacon.sqlite")
/// let response = try await client.send(.policy("count 7"))
/// ```
public struct ControlClient: Sendable {
    /// The store the engine writes (named in errors).
    public let store: String
    /// The control socket's path.
    public let socketPath: String
    /// The longest response line read; a longer one is an error that says so.
    public let maxResponseBytes: Int

    /// A client for the engine writing `store`, at ``ControlProtocol/socketPath(forStore:)``,
    /// reading responses of at most `maxResponseBytes` (tests lower it).
    public init(store: String, maxResponseBytes: Int = ControlProtocol.maxResponseBytes) {
        self.store = store
        self.socketPath = ControlProtocol.socketPath(forStore: store)
        self.maxResponseBytes = maxResponseBytes
    }

    /// Whether something listens on the socket now (one connect, closed at once, that
    /// sends nothing): an engine that does not answer is still there, one that went away
    /// is not. It says nothing of whether the listener will answer.
    public var somethingListens: Bool {
        ControlSocket.probe(socketPath) == .live
    }

    /// Sends one command and waits for its response.
    public func send(_ command: ControlCommand, id: Int = 1) async throws(ControlClientError) -> ControlResponse {
        try await send(line: ControlRequest(id: id, command: command).line)
    }

    /// Sends raw bytes as one request (a newline is added when missing) and waits for the
    /// first response line: for diagnostics and tests of malformed input.
    public func send(line: [UInt8]) async throws(ControlClientError) -> ControlResponse {
        var first: ControlResponse?
        try await exchange(line: line) { response in
            first = response
            return false
        }
        guard let first else {
            throw ControlClientError(kind: .badResponse, message: "the engine at \(socketPath) closed the connection without answering")
        }
        return first
    }

    /// Sends `watch` and hands each snapshot (a `status` response) to `body` until it
    /// returns `false`, the engine refuses or closes the connection, or the task is cancelled.
    ///
    /// ```swift
    /// try await client.watch(intervalMilliseconds: 500) { response in
    ///     print(response.line)
    ///     return true
    /// }
    /// ```
    public func watch(
        intervalMilliseconds: Int = ControlProtocol.defaultWatchInterval, id: Int = 1,
        _ body: (ControlResponse) async -> Bool
    ) async throws(ControlClientError) {
        let line = ControlRequest(id: id, command: .watch(intervalMilliseconds: intervalMilliseconds)).line
        try await exchange(line: line) { response in
            await body(response) && response.isApplied
        }
    }

    /// The answer when nothing listens at the socket's path.
    private var noEngine: ControlClientError {
        ControlClientError(kind: .noEngine, message: "no engine serves \(store) (no control socket at \(socketPath))")
    }

    /// Sends one request line and hands each response line to `handle` while it returns `true`.
    private func exchange(line: [UInt8], _ handle: (ControlResponse) async -> Bool) async throws(ControlClientError) {
        var line = line
        if line.last != UInt8(ascii: "\n") { line.append(UInt8(ascii: "\n")) }
        let connection: NIOAsyncChannel<ControlLine, ByteBuffer>
        // A socket path longer than `sun_path` holds is reached through its directory.
        let name: ControlSocket.ReachableName
        switch ControlSocket.ReachableName.of(socketPath) {
        case .success(let reachable): name = reachable
        case .failure(let error):
            // No socket can be there: nothing at the path, or a path no file can have.
            var info = stat()
            if lstat(socketPath, &info) != 0 && [ENOENT, ENOTDIR, ENAMETOOLONG].contains(errno) {
                throw noEngine
            }
            throw ControlClientError(kind: .connection, message: "cannot reach the control socket at \(socketPath): \(error.reason)")
        }
        defer { name.close() }
        // Nothing at the socket's path: no engine, said without a connection's machinery
        // (a fleet asks each store's socket at every poll).
        var socketInfo = stat()
        if lstat(socketPath, &socketInfo) != 0 && [ENOENT, ENOTDIR].contains(errno) {
            throw noEngine
        }
        let limit = maxResponseBytes
        do {
            connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: name.path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Responses carry dead letters whole: allow far more than a request may.
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ControlLineDecoder(maxBytes: limit)))
                        return try NIOAsyncChannel<ControlLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw classify(error)
        }
        let sent = line
        do {
            try await connection.executeThenClose { responses, requests in
                try await requests.write(ByteBuffer(bytes: sent))
                for try await frame in responses {
                    guard case .line(let bytes) = frame else {
                        throw ControlClientError(
                            kind: .badResponse,
                            message: "the engine at \(socketPath) answered with a line longer than \(limit) bytes, the most this client reads; ask for less (a smaller limit)")
                    }
                    guard !bytes.isEmpty else { continue }
                    guard let response = ControlProtocol.decodeResponse(bytes) else {
                        throw ControlClientError(kind: .badResponse, message: "the engine at \(socketPath) answered something that is not a response")
                    }
                    guard await handle(response) else { return }
                }
            }
        } catch let error as ControlClientError {
            throw error
        } catch is CancellationError {
            return  // the caller stopped listening (a watch ended by its task): not a failure
        } catch {
            throw ControlClientError(kind: .connection, message: "the connection to \(socketPath) failed: \(error)")
        }
    }

    private func classify(_ error: any Error) -> ControlClientError {
        let code = (error as? IOError)?.errnoCode
        switch code {
        case ENOENT?, ENOTDIR?, ECONNREFUSED?, ENOTSOCK?:
            return noEngine
        case EACCES?, EPERM?:
            return ControlClientError(kind: .connection, message: "cannot reach the control socket at \(socketPath): permission denied (run as the engine's user)")
        default:
            return ControlClientError(kind: .connection, message: "cannot reach the control socket at \(socketPath): \(error)")
        }
    }
}
