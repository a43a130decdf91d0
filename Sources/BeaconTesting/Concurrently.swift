/// `body` for each item, at most `width` at once; the results in the items' order. For a
/// test whose cases wait on the wall clock or on other processes (a simulation, a
/// hundred short-lived `beacon` processes): run a few at a time, they take a fraction of
/// the time and check the same things. The first error cancels the rest and is thrown.
///
/// ```swift
/// let results = try await concurrently(scenarios, width: 3) { try await simulate($0) }
/// ```
public func concurrently<Item: Sendable, Output: Sendable>(
    _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) async throws -> Output
) async throws -> [Output] {
    try await withThrowingTaskGroup(of: (Int, Output).self) { group in
        var results = [Output?](repeating: nil, count: items.count)
        var next = 0
        func start() {
            let index = next, item = items[index]
            group.addTask { (index, try await body(item)) }
            next += 1
        }
        while next < min(max(1, width), items.count) { start() }
        while let (index, output) = try await group.next() {
            results[index] = output
            if next < items.count { start() }
        }
        return results.compactMap { $0 }
    }
}
