import Beacon

/// One control request with a bound on the wait: the engine's response, or a
/// ``CLIError`` (exit 1) in one line when there is none.
enum ControlCall {
    static func answer(_ client: ControlClient, _ command: ControlCommand, within limit: Duration) async throws -> ControlResponse {
        try await withThrowingTaskGroup(of: ControlResponse?.self) { group in
            group.addTask {
                do {
                    return try await client.send(command)
                } catch {
                    throw CLIError.runtime((error as? ControlClientError)?.message ?? "\(error)")
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else {
                throw CLIError.runtime("the engine at \(client.socketPath) did not answer within \(limit)")
            }
            return response
        }
    }
}
