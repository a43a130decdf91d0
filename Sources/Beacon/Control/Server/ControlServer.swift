import BeaconWire
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves an engine's control channel on a Unix domain socket (see ``ControlProtocol``).
///
/// The socket is created mode 0600, and every request is checked against the peer's
/// credentials (`SO_PEERCRED`): only the engine's own uid or root may command it; others
/// get a refusal that says so. Every command is answered, logged with the peer's uid and
/// pid, and counted (``counts``, and `commands` in the `status` result). A socket file
/// left by a killed engine is replaced; one a live engine answers on is left alone and
/// the start fails with ``ControlServerError``.
///
/// Start one with ``BeaconEngine/serveControl(at:logger:)``; ``close()`` stops it and
/// removes the socket file. As a `Service` in a `ServiceGroup`, it closes on graceful
/// shutdown:
///
/// ```swift
/// let control = try await engine.serveControl()
/// let group = ServiceGroup(services: [engine, control], gracefulShutdownSignals: [.sigterm], logger: logger)
/// ```
///
/// At most ``maxConnections`` connections are served at once. One more closes the
/// connection idle the longest to make room; when none is idle (all are answering or
/// watching), it is answered with a refusal and closed. A connection that sends no
/// request for ``idleTimeout`` is closed (a watching one is not: it is written to).
public final class ControlServer: Service, Sendable {
    /// Connections served at once at most.
    public static let maxConnections = 32
    /// How long a connection may wait between requests before it is closed.
    public static let idleTimeout: Duration = .seconds(10)

    /// What a server does with an accepted command.
    public typealias Handler = @Sendable (ControlCommand) async -> Result<JSONValue, ControlRefusal>

    /// Commands answered so far.
    public struct Counts: Sendable, Hashable {
        public var applied = 0
        public var refused = 0
    }

    /// The socket's path.
    public let path: String
    private let inode: UInt64
    private let engineUID: UInt32
    private let maxResponseBytes: Int
    private let handler: Handler
    /// Keeps each command that would change the engine, applied or refused (the engine
    /// writes it to its store); `nil`: the log has it only.
    private let audit: (@Sendable (OperatorAction) async -> Void)?
    private let logger: Logger
    private let counted = Mutex(Counts())
    private let acceptTask = Mutex<Task<Void, Never>?>(nil)
    private let connections = Mutex(ControlConnectionTable<any Channel, ContinuousClock.Instant>(capacity: ControlServer.maxConnections))

    private init(
        path: String, inode: UInt64, engineUID: UInt32, maxResponseBytes: Int, handler: @escaping Handler,
        audit: (@Sendable (OperatorAction) async -> Void)?, logger: Logger
    ) {
        self.audit = audit
        self.path = path
        self.inode = inode
        self.engineUID = engineUID
        self.maxResponseBytes = maxResponseBytes
        self.handler = handler
        self.logger = logger
    }

    /// Binds `path` (replacing a stale socket file, refusing a live one) and starts
    /// accepting connections. An answer longer than `maxResponseBytes` is refused instead
    /// of sent (tests lower it).
    ///
    /// - Parameter lock: the store's lock, held by this process. A socket file in the way
    ///   is then stale whatever a probe says (a probe between another engine's `bind` and
    ///   `listen` is refused too, so without the lock "refused" cannot mean "stale").
    /// - Parameter audit: given every command that would change the engine (not the
    ///   reads), once answered, applied or refused, with the peer that sent it.
    public static func start(
        path: String, lock: StoreLock? = nil, logger: Logger = Logger(label: "beacon.control"),
        maxResponseBytes: Int = ControlProtocol.maxResponseBytes, audit: (@Sendable (OperatorAction) async -> Void)? = nil,
        handler: @escaping Handler
    ) async throws(ControlServerError) -> ControlServer {
        switch ControlSocket.probe(path) {
        case .nothing: break
        case .stale:  // always replaced
            fallthrough
        case .live where lock != nil:  // we hold the store's lock: whatever listens is not its engine
            logger.notice("replacing a stale control socket left by an engine that is gone", metadata: ["path": "\(path)"])
            unlink(path)
        case .live:
            throw ControlServerError(path: path, reason: "another running engine serves this store; stop it first")
        case .unusable(let reason):
            throw ControlServerError(path: path, reason: reason)
        }
        let (fd, inode) = try ControlSocket.bindPrivate(path).get()
        let channel: NIOAsyncChannel<NIOAsyncChannel<ControlLine, ByteBuffer>, Never>
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(fd) { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(
                            IdleStateHandler(readTimeout: TimeAmount(ControlServer.idleTimeout)), name: ControlIdleCloser.idleHandlerName)
                        try child.pipeline.syncOperations.addHandler(ControlIdleCloser())
                        try child.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(ControlLineDecoder(maxBytes: ControlProtocol.maxLineBytes)))
                        return try NIOAsyncChannel<ControlLine, ByteBuffer>(wrappingChannelSynchronously: child)
                    }
                }
        } catch {
            ControlSocket.removeIfOurs(path, inode: inode)
            throw ControlServerError(path: path, reason: "cannot listen: \(error)")
        }
        let server = ControlServer(
            path: path, inode: inode, engineUID: geteuid(), maxResponseBytes: maxResponseBytes, handler: handler, audit: audit,
            logger: logger)
        // Accepting starts with the listening socket, before anyone runs the server: an
        // engine's control channel answers from its start (`ctl` right after launch), and
        // `close()` ends it (cancelled, then awaited), which `run()` calls on its way out.
        server.acceptTask.withLock { $0 = Task { await server.accept(on: channel) } }
        logger.info("serving the control channel", metadata: ["path": "\(path)"])
        return server
    }

    /// Commands answered so far, applied and refused.
    public var counts: Counts { counted.withLock { $0 } }

    /// Serves until graceful shutdown or cancellation, then closes.
    public func run() async {
        do {
            try await gracefulShutdown()
        } catch {
            // cancelled: close all the same
        }
        await close()
    }

    /// Stops accepting, ends the open connections and removes the socket file.
    public func close() async {
        let task = acceptTask.withLock { $0 }
        task?.cancel()
        await task?.value
        ControlSocket.removeIfOurs(path, inode: inode)
    }

    private func accept(on channel: NIOAsyncChannel<NIOAsyncChannel<ControlLine, ByteBuffer>, Never>) async {
        do {
            try await channel.executeThenClose { connections in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in connections {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } catch is CancellationError {
            // closing
        } catch {
            logger.error("the control channel stopped accepting", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    private func serve(_ connection: NIOAsyncChannel<ControlLine, ByteBuffer>) async {
        let admission = connections.withLock { $0.admit(connection.channel, now: .now) }
        guard case .admitted(let id, let evicted) = admission else {
            let response = ControlResponse(id: nil, refusal: "too many control connections (\(Self.maxConnections)); try again")
            record(response, command: "(connection)", peer: await Self.peer(of: connection.channel))
            try? await connection.executeThenClose { _, responses in  // the peer may be gone already: nothing to tell
                try await responses.write(ByteBuffer(bytes: response.line))
            }
            return
        }
        if let evicted {
            logger.notice("closed the control connection idle the longest to let a new one in", metadata: ["limit": "\(Self.maxConnections)"])
            evicted.close(promise: nil)
        }
        defer { connections.withLock { $0.remove(id) } }
        // Always in the pipeline (added above); missing, the connection only loses its busy mark.
        let closer = try? await connection.channel.pipeline.handler(type: ControlIdleCloser.self).get()
        let peer = await Self.peer(of: connection.channel)
        do {
            try await connection.executeThenClose { lines, responses in
                for try await frame in lines {
                    switch frame {
                    case .tooLong:
                        let response = ControlResponse(
                            id: nil, refusal: "the request line is longer than \(ControlProtocol.maxLineBytes) bytes; the connection is closed")
                        record(response, command: "(too long)", peer: peer)
                        try await responses.write(ByteBuffer(bytes: response.line))
                        return
                    case .line(let bytes):
                        if bytes.isEmpty { continue }
                        connections.withLock { $0.begin(id) }
                        closer?.isBusy = true
                        let (response, line, command) = await respond(to: bytes, from: peer)
                        try await responses.write(ByteBuffer(bytes: line))
                        closer?.isBusy = false
                        connections.withLock { $0.end(id, now: .now) }
                        if case .watch(let interval)? = command {
                            connections.withLock { $0.watch(id) }
                            // Written to from now on: the idle timeout does not apply.
                            // Fails only when the connection is closing: the watch loop ends on its own then.
                            try? await connection.channel.pipeline.removeHandler(name: ControlIdleCloser.idleHandlerName).get()
                            // The connection is the stream's now: a snapshot every interval until
                            // the peer closes it (the write fails) or the server closes (cancelled).
                            while true {
                                // In slices, so that a watcher that hung up frees its slot within
                                // a quarter of a second, not at the next snapshot a minute later.
                                guard try await Self.sleep(.milliseconds(interval), whileOpen: connection.channel) else { return }
                                let snapshot = await statusResponse(id: response.id)
                                try await responses.write(ByteBuffer(bytes: snapshot.line))
                            }
                        }
                    }
                }
            }
        } catch {
            logger.debug("a control connection ended with an error", metadata: ["peer": "\(peer.map(\.description) ?? "unknown")", "error": "\(error)"])
        }
    }

    /// The answer to one request line, as it goes on the wire, and the command when it
    /// was applied.
    private func respond(to line: [UInt8], from peer: ControlPeer?) async -> (ControlResponse, [UInt8], ControlCommand?) {
        let request: ControlRequest
        switch ControlProtocol.decodeRequest(line) {
        case .request(let decoded): request = decoded
        case .refused(let refusal):
            record(refusal, command: "(unreadable)", peer: peer)
            return (refusal, refusal.line, nil)
        }
        guard let peer else {
            let response = ControlResponse(id: request.id, refusal: "refused: the peer's credentials could not be read")
            record(response, command: request.command.name, peer: nil)
            await keep(request.command, response, peer: nil)
            return (response, response.line, nil)
        }
        guard peer.mayCommand(engineUID: engineUID) else {
            let response = ControlResponse(
                id: request.id,
                refusal: "refused: peer uid \(peer.uid) (pid \(peer.pid)) may not command this engine; only uid \(engineUID) or root may")
            record(response, command: request.command.name, peer: peer)
            await keep(request.command, response, peer: peer)
            return (response, response.line, nil)
        }
        var response: ControlResponse
        switch await handler(request.command) {
        case .success(let result): response = ControlResponse(id: request.id, result: result)
        case .failure(let refusal): response = ControlResponse(id: request.id, refusal: refusal.reason)
        }
        var wire = response.line
        if wire.count - 1 > maxResponseBytes {
            // Sent, it would be cut off by the client: say what happened instead.
            response = ControlResponse(
                id: request.id,
                refusal: "the answer to '\(request.command.name)' would be \(wire.count - 1) bytes, more than the "
                    + "\(maxResponseBytes) a control response may hold; ask for less (a smaller limit)")
            wire = response.line
        }
        record(response, command: request.command.name, peer: peer, isRead: request.command.isRead)
        await keep(request.command, response, peer: peer)
        switch request.command {
        case .status, .watch:
            response = withCounts(response)
            wire = response.line
        default: break
        }
        return (response, wire, response.isApplied ? request.command : nil)
    }

    /// A `status` result for a watching connection (each one is not counted as a command:
    /// the `watch` that asked for them was).
    private func statusResponse(id: Int?) async -> ControlResponse {
        switch await handler(.status) {
        case .success(let result): return withCounts(ControlResponse(id: id, result: result))
        case .failure(let refusal): return ControlResponse(id: id, refusal: refusal.reason)
        }
    }

    /// A `status` result with the commands counted so far.
    private func withCounts(_ response: ControlResponse) -> ControlResponse {
        guard case .success(.object(var members)) = response.outcome else { return response }
        let counts = self.counts
        members["commands"] = ["applied": .int(counts.applied), "refused": .int(counts.refused)]
        var response = response
        response.outcome = .success(.object(members))
        return response
    }

    /// Hands a command that would change the engine to ``audit`` (reads are not kept).
    private func keep(_ command: ControlCommand, _ response: ControlResponse, peer: ControlPeer?) async {
        guard let audit, !command.isRead else { return }
        let reason: String? = if case .failure(let refusal) = response.outcome { refusal.reason } else { nil }
        await audit(OperatorAction(
            at: .now(), command: command.name, argument: command.argument?.jsonString, applied: response.isApplied,
            reason: reason, peerUID: peer?.uid, peerPID: peer?.pid))
    }

    private func record(_ response: ControlResponse, command: String, peer: ControlPeer?, isRead: Bool = false) {
        counted.withLock { counts in
            if response.isApplied { counts.applied += 1 } else { counts.refused += 1 }
        }
        var metadata: Logger.Metadata = [
            "command": "\(command)", "peer_uid": "\(peer.map { String($0.uid) } ?? "unknown")",
            "peer_pid": "\(peer.map { String($0.pid) } ?? "unknown")",
        ]
        switch response.outcome {
        case .success where isRead:
            // An attached monitor asks twice a second: reads stay out of the info log.
            logger.debug("control command applied", metadata: metadata)
        case .success:
            logger.info("control command applied", metadata: metadata)
        case .failure(let refusal):
            metadata["reason"] = "\(refusal.reason)"
            logger.notice("control command refused", metadata: metadata)
        }
    }

    /// Sleeps `duration` in slices of at most 250 ms while `channel` is open; whether it
    /// still is. Throws when cancelled (the server closes).
    static func sleep(_ duration: Duration, whileOpen channel: any Channel) async throws -> Bool {
        let slice = Duration.milliseconds(250)
        var left = duration
        while left > .zero {
            guard channel.isActive else { return false }
            let step = min(left, slice)
            try await Task.sleep(for: step)
            left -= step
        }
        return channel.isActive
    }

    /// The peer's credentials (`SO_PEERCRED`), or `nil` when they cannot be read.
    private static func peer(of channel: any Channel) async -> ControlPeer? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        do {
            let credentials: PeerCredentials = try await provider.unsafeGetSocketOption(
                level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
            ).get()
            return ControlPeer(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        } catch {
            return nil  // unreadable credentials: the caller refuses the peer
        }
    }
}
