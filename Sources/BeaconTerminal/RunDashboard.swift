import Beacon
import BeaconDashboard

/// Runs the dashboard in the terminal until `q`, SIGINT/SIGTERM, or the end of
/// `snapshots`; the terminal is restored however it ends (errors included).
///
/// On the main actor, whenever a key, a snapshot or a signal arrives (and at least every
/// 250 ms, at most every 50 ms), it drains the waiting keys, reduces them, awaits `perform`
/// for each action in order, and repaints only when the snapshot, the state or the size
/// changed: an idle screen sleeps. `q` (or a signal) performs `.quit` and returns once that call
/// returns; the caller then does its bounded final flush. Messages fade after 5 seconds.
///
/// ```swift
/// // beacon demo
/// let exit = try await runDashboard(snapshots: observer.snapshots, mode: .demo) { action in
///     await demo.apply(action)   // flush, setPolicy, setOffline, burst, …
/// }
/// // beacon monitor: snapshots polled from the store; only .quit is ever performed
/// let exit = try await runDashboard(snapshots: poller.snapshots, mode: .monitor) { _ in }
/// ```
///
/// - Parameters:
///   - snapshots: The engine's snapshots; best made with `.bufferingNewest(1)`.
///   - mode: `.demo` (keys drive the engine) or `.monitor` (read-only).
///   - initialState: A starting state (burst size, generator rate, fault preset), if not
///     the defaults for `mode`.
///   - deadLetters: Where the dead-letter view reads letters (search, detail pane); without
///     it the view lists the snapshot's newest letters.
///   - operatorActions: Where the operator-log view (`l`) reads the commands kept in the
///     store; without it the view says it is not available.
///   - pendingEvents: Where the pending-events view (`e`) reads the queue's head and tail;
///     without it the view says it is not available.
///   - caption: Read at each tick: a line the title shows in place of the mode tag
///     (`beacon simulate --watch` names its running step); `nil` keeps the tag.
///   - perform: Carries out one action and says what it answered (a refusal or no answer
///     replaces the key's message); awaited before the next key is handled.
/// - Returns: Why it stopped.
/// - Throws: ``TerminalError`` when there is no usable terminal; `CancellationError`
///   when the surrounding task is cancelled.
@MainActor
public func runDashboard(
    snapshots: AsyncStream<EngineSnapshot>,
    mode: DashboardMode,
    initialState: DashboardState? = nil,
    deadLetters: (any DeadLetterReading)? = nil,
    pendingEvents: (any PendingEventReading)? = nil,
    operatorActions: (any OperatorActionReading)? = nil,
    caption: (@Sendable () -> String?)? = nil,
    perform: @escaping @Sendable (DashboardAction) async -> CommandAnswer
) async throws -> DashboardExit {
    let screen = try TerminalScreen()
    defer { screen.close() }
    let inbox = SnapshotInbox(snapshots) { [weak screen] in screen?.wake() }
    defer { inbox.cancel() }
    var loop = DashboardLoop(state: initialState ?? DashboardState(mode: mode))
    loop.state.mode = mode
    let clock = ContinuousClock()
    var pacing = LoopPacing(clock: clock)
    while true {
        if let signal = screen.receivedSignal {
            _ = await perform(.quit)  // quitting: no screen to answer on
            return .interrupted(signal: signal)
        }
        while let key = screen.nextKey() {
            if key == .resize {
                screen.invalidate()
                loop.needsRepaint = true
            }
            let (next, actions) = DashboardReducer.reduce(loop.state, key)
            loop.state = next
            for action in actions {
                let answer = await perform(action)
                if action == .quit { return .quit }
                if let message = answer.message { loop.state.message = message }
            }
        }
        loop.expireMessage(now: clock.now)
        if let caption { loop.state.caption = caption() }
        if let deadLetters { await loop.readDeadLetters(from: deadLetters, now: clock.now) }
        await loop.readPendingEvents(from: pendingEvents, now: clock.now)
        await loop.readOperatorLog(from: operatorActions, now: clock.now)
        loop.repaintIfNeeded(screen: screen, inbox: inbox)
        if inbox.isFinished { return .snapshotsEnded }
        try await pacing.next(screen: screen)
    }
}

/// The run loop's memory between ticks: what was drawn last and when the message appeared.
@MainActor
struct DashboardLoop {
    var state: DashboardState
    var needsRepaint = true
    private var drawnGeneration = -1
    private var drawnState: DashboardState?
    private var drawnSize = (width: -1, height: -1)
    private var messages = MessageTimer()
    private var deadLetters = DeadLetterRefresher()
    private var pendingEvents = PendingEventsRefresher()
    private var operatorLog = OperatorLogRefresher()

    init(state: DashboardState) {
        self.state = state
    }

    /// Clears the status message once it has been up for a while.
    mutating func expireMessage(now: ContinuousClock.Instant) {
        messages.expire(&state.message, now: now)
    }

    /// While the dead-letter view is open, reads what it shows (``DeadLetterRefresher``).
    mutating func readDeadLetters(from source: any DeadLetterReading, now: ContinuousClock.Instant) async {
        await deadLetters.refresh(&state, from: source, now: now)
    }

    /// While the pending-events view is open, reads what it shows (``PendingEventsRefresher``).
    mutating func readPendingEvents(from source: (any PendingEventReading)?, now: ContinuousClock.Instant) async {
        await pendingEvents.refresh(&state, from: source, now: now)
    }

    /// While the operator-log view is open, reads what it shows (``OperatorLogRefresher``).
    mutating func readOperatorLog(from source: (any OperatorActionReading)?, now: ContinuousClock.Instant) async {
        await operatorLog.refresh(&state, from: source, now: now)
    }

    /// Renders and paints when a new snapshot arrived, the state changed, or the size did.
    mutating func repaintIfNeeded(screen: TerminalScreen, inbox: SnapshotInbox) {
        if inbox.generation != drawnGeneration, let snapshot = inbox.latest {
            state.observe(snapshot)
        }
        let size = screen.size
        guard needsRepaint || inbox.generation != drawnGeneration || state != drawnState
            || size.width != drawnSize.width || size.height != drawnSize.height
        else { return }
        let grid = inbox.latest.map { DashboardRenderer.render(snapshot: $0, state: state, size: size) }
            ?? DashboardRenderer.renderWaiting(state: state, size: size)
        screen.paint(grid)
        drawnGeneration = inbox.generation
        drawnState = state
        drawnSize = size
        needsRepaint = false
    }
}

