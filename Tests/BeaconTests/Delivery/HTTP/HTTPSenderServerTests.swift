import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import Testing

// The scripted server the HTTPSender suites run against (named `…Tests` to sit with them).

/// One scripted answer.
struct ScriptedResponse: Sendable {
    var status: Int
    var headers: [String: String] = [:]
    var body: String = ""
    /// Holds the request open until the test ends, to provoke a client timeout.
    var hangs = false

    static func status(_ status: Int, headers: [String: String] = [:], body: String = "") -> ScriptedResponse {
        ScriptedResponse(status: status, headers: headers, body: body)
    }

    /// Never answers while the test runs.
    static let hang = ScriptedResponse(status: 200, hangs: true)
}

/// What the server received.
struct RecordedRequest: Sendable {
    var method: String
    var path: String
    /// Header names lowercased.
    var headers: [String: String]
    var body: [UInt8]
}

/// A Hummingbird 2 app on 127.0.0.1 (port 0) that records requests and answers from a
/// script, one entry per request in arrival order (200 once the script runs out).
final class ScriptedServer: Sendable {
    struct HarnessError: Error, CustomStringConvertible {
        var description: String
    }

    private struct State {
        var script: [ScriptedResponse]
        var requests: [RecordedRequest] = []
        var released = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>
    private let port = Mutex(0)
    /// Each request as it arrives, for tests that must act while a request is in flight.
    let arrivals: AsyncStream<RecordedRequest>
    private let arrivalsContinuation: AsyncStream<RecordedRequest>.Continuation

    private init(script: [ScriptedResponse]) {
        state = Mutex(State(script: script))
        (arrivals, arrivalsContinuation) = AsyncStream.makeStream(of: RecordedRequest.self)
    }

    /// `http://127.0.0.1:PORT`.
    var endpoint: String { "http://127.0.0.1:\(port.withLock { $0 })" }

    /// The requests received so far, in arrival order.
    var requests: [RecordedRequest] { state.withLock { $0.requests } }

    /// Starts a server, runs `body` against it, and stops it (releasing hanging handlers).
    static func run<T>(_ script: [ScriptedResponse], _ body: (ScriptedServer) async throws -> T) async throws -> T {
        let server = ScriptedServer(script: script)
        let router = Router()
        router.post("v1/batch") { request, _ in try await server.respond(to: request) }
        router.post("elsewhere/v1/batch") { request, _ in try await server.respond(to: request) }
        router.get("v1/config") { request, _ in try await server.respond(to: request) }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "beacon.test.scripted-server")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { portContinuation.yield(port) }
                portContinuation.finish()
            },
            logger: logger
        )
        let services = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        let running = Task {
            defer { portContinuation.finish() }
            try await services.run()
        }
        var portIterator = ports.makeAsyncIterator()
        guard let port = await portIterator.next() else {
            try await running.value
            throw HarnessError(description: "the scripted server stopped before listening")
        }
        server.port.withLock { $0 = port }
        do {
            let value = try await body(server)
            try await server.stop(services, running)
            return value
        } catch {
            try await server.stop(services, running)
            throw error
        }
    }

    /// Releases hanging handlers, then shuts the server down gracefully and waits for it.
    private func stop(_ services: ServiceGroup, _ running: Task<Void, any Error>) async throws {
        let waiters = state.withLock { state in
            state.released = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        arrivalsContinuation.finish()
        await services.triggerGracefulShutdown()
        try await running.value
    }

    private func respond(to request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 16 * 1024 * 1024)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let recorded = RecordedRequest(
            method: request.method.rawValue, path: request.uri.path, headers: headers, body: Array(body.readableBytesView))
        let scripted = state.withLock { state in
            state.requests.append(recorded)
            return state.script.isEmpty ? ScriptedResponse.status(200) : state.script.removeFirst()
        }
        arrivalsContinuation.yield(recorded)
        if scripted.hangs { await waitForRelease() }
        var fields = HTTPFields()
        for (name, value) in scripted.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: scripted.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: scripted.body))
        )
    }

    /// Suspends until `stop` releases hanging handlers (no timer involved).
    private func waitForRelease() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.released { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
