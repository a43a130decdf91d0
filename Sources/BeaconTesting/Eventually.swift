/// Whether `condition` holds within `limit`, looking every `interval`: for what a test can
/// only observe from outside (another process's output, a file, an HTTP answer), where no
/// event says when it changes. The limit bounds the wait so that a test fails with its
/// message instead of hanging; what the engine publishes is awaited instead, through
/// ``Beacon/TrackingObserver/firstSnapshot(within:where:)``.
///
/// ```swift
/// #expect(try await eventually { try collector.storedCount() == 20 })
/// ```
public func eventually(
    within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        do {
            try await Task.sleep(for: interval)
        } catch {
            return try await condition()  // cancelled: one last look, no more waiting
        }
    }
}
