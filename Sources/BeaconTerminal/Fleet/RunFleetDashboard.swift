import Beacon
import BeaconDashboard

/// Runs the fleet screen (several engines, one summary row each; Enter opens one) until
/// `q`, SIGINT/SIGTERM, or the end of every engine's snapshots; the terminal is restored
/// however it ends.
///
/// On the main actor, whenever a key, a snapshot or a signal arrives (and at least every
/// 250 ms, at most every 50 ms): drains the keys through ``FleetReducer`` and awaits
/// each engine action in order, takes each engine's newest snapshot, reads the open
/// engine's dead letters while its dead-letter view is up, and repaints only when
/// something changed.
///
/// ```swift
/// let exit = try await runFleetDashboard(engines: stores.map { store in
///     FleetEngine(name: store.name, snapshots: store.snapshots, deadLetters: store.reader) { await store.perform($0) }
/// }, initialState: FleetState(names: names, engine: DashboardState(mode: .attached)))
/// ```
@MainActor
public func runFleetDashboard(engines: [FleetEngine], initialState: FleetState) async throws -> DashboardExit {
    let screen = try TerminalScreen()
    defer { screen.close() }
    let inboxes = engines.map { engine in SnapshotInbox(engine.snapshots) { [weak screen] in screen?.wake() } }
    defer { inboxes.forEach { $0.cancel() } }
    var state = initialState
    var listMessages = MessageTimer()
    var engineMessages = Array(repeating: MessageTimer(), count: engines.count)
    var refreshers = Array(repeating: DeadLetterRefresher(), count: engines.count)
    var pendingReaders = Array(repeating: PendingEventsRefresher(), count: engines.count)
    var logReaders = Array(repeating: OperatorLogRefresher(), count: engines.count)
    var observed = Array(repeating: -1, count: engines.count)
    var drawn: (generations: [Int], state: FleetState, size: (width: Int, height: Int))?
    let clock = ContinuousClock()
    var pacing = LoopPacing(clock: clock)
    while true {
        if let signal = screen.receivedSignal {
            for engine in engines { _ = await engine.perform(.quit) }
            return .interrupted(signal: signal)
        }
        var resized = false
        while let key = screen.nextKey() {
            if key == .resize {
                screen.invalidate()
                resized = true
            }
            let (next, actions) = FleetReducer.reduce(state, key)
            state = next
            for action in actions {
                switch action {
                case .engine(let index, let engineAction) where engines.indices.contains(index):
                    let answer = await engines[index].perform(engineAction)
                    if let message = answer.message {
                        state.engines[index].message = message
                        state.message = StatusMessage("\(state.names[index]): \(message.text)", severity: message.severity)
                    }
                case .engine:
                    break
                case .quit:
                    for engine in engines { _ = await engine.perform(.quit) }
                    return .quit
                }
            }
        }
        for (index, inbox) in inboxes.enumerated() where inbox.generation != observed[index] {
            if let snapshot = inbox.latest { state.observe(snapshot, engine: index) }
            observed[index] = inbox.generation
        }
        let now = clock.now
        listMessages.expire(&state.message, now: now)
        if let index = state.focused, engines.indices.contains(index) {
            engineMessages[index].expire(&state.engines[index].message, now: now)
            if let source = engines[index].deadLetters { await refreshers[index].refresh(&state.engines[index], from: source, now: now) }
            await pendingReaders[index].refresh(&state.engines[index], from: engines[index].pendingEvents, now: now)
            await logReaders[index].refresh(&state.engines[index], from: engines[index].operatorActions, now: now)
        }
        let size = screen.size
        if resized || drawn == nil || drawn?.generations != observed || drawn?.state != state
            || drawn?.size.width != size.width || drawn?.size.height != size.height {
            screen.paint(DashboardRenderer.renderFleet(snapshots: inboxes.map(\.latest), state: state, size: size))
            drawn = (observed, state, size)
        }
        if inboxes.allSatisfy(\.isFinished) { return .snapshotsEnded }
        try await pacing.next(screen: screen)
    }
}
