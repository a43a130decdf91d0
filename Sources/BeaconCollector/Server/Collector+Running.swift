extension Collector {
    /// Serves for the duration of `body`, which gets the port the collector listens on,
    /// then stops the collector. For tools and tests that need a collector for a while:
    ///
    /// ```swift
    /// let collector = try Collector(configuration: CollectorConfiguration(port: 0))
    /// try await collector.withRunning { port in
    ///     // send to http://127.0.0.1:\(port)
    /// }
    /// ```
    public func withRunning<Value: Sendable>(_ body: @Sendable (Int) async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await self.run()
                } catch is CancellationError {
                    // Stopped at the end of `body`: the expected way out.
                }
            }
            let value: Value
            do {
                value = try await body(try await port)
            } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
            try await group.waitForAll()
            return value
        }
    }
}
