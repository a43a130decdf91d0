import Beacon

/// One control request with a bound on the wait.
enum ControlCall {
    /// What a bounded request came to.
    enum Outcome: Sendable {
        case response(ControlResponse)
        /// Nothing listens at the socket: no engine serves the store.
        case noEngine(String)
        /// Something listens but gave no response: busy past the bound, a broken
        /// connection, or an answer that is not a response. One line.
        case failed(String)
    }

    /// The engine's response, or a ``CLIError`` (exit 1) in one line when there is none.
    static func answer(_ client: ControlClient, _ command: ControlCommand, within limit: Duration) async throws -> ControlResponse {
        switch await outcome(client, command, within: limit) {
        case .response(let response): return response
        case .noEngine(let message), .failed(let message): throw CLIError.runtime(message)
        }
    }

    /// The request's outcome, telling "no engine" apart from "an engine that did not answer".
    static func outcome(_ client: ControlClient, _ command: ControlCommand, within limit: Duration) async -> Outcome {
        await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do throws(ControlClientError) {
                    return .response(try await client.send(command))
                } catch {
                    return error.kind == .noEngine ? .noEngine(error.message) : .failed(error.message)
                }
            }
            group.addTask {
                do {
                    try await Task.sleep(for: limit)
                } catch {
                    return .failed("the request to \(client.socketPath) was cancelled")
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = await group.next(), let outcome = first else {
                return .failed("the engine at \(client.socketPath) did not answer within \(limit)")
            }
            return outcome
        }
    }
}
