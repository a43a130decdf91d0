/// The pace of a dashboard's run loop: a tick when something happens, never more than 20
/// a second (a busy engine's snapshots are drawn, not each one), and at least 4 a second
/// (a resize, a fading message and the open view's reads need no event to be noticed).
struct LoopPacing {
    /// At most this often: 20 frames a second.
    static let shortest = Duration.milliseconds(50)
    /// At least this often, with nothing happening.
    static let longest = Duration.milliseconds(250)

    private let clock: ContinuousClock
    private var lastTick: ContinuousClock.Instant

    init(clock: ContinuousClock) {
        self.clock = clock
        lastTick = clock.now
    }

    /// Returns when the next tick is due.
    /// - Throws: `CancellationError` when the task is cancelled.
    @MainActor
    mutating func next(screen: TerminalScreen) async throws {
        await screen.waitForActivity(atMost: Self.longest)
        try Task.checkCancellation()
        let early = lastTick + Self.shortest - clock.now
        if early > .zero { try await Task.sleep(for: early) }
        lastTick = clock.now
    }
}
