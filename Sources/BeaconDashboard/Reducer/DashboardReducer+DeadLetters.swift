import Beacon

extension DashboardReducer {
    /// A key while a destructive action waits for its confirmation: `y` does it, any
    /// other key cancels.
    static func handleConfirmationKey(_ key: Key, state: inout DashboardState) -> [DashboardAction] {
        guard let confirmation = state.confirmation else { return [] }
        state.confirmation = nil
        guard key == .character("y") || key == .character("Y") else {
            state.message = StatusMessage("nothing purged")
            return []
        }
        switch confirmation {
        case .purge(let id):
            state.message = StatusMessage("purging dead letter \(id)", severity: .warning)
            return [.purgeDeadLetters(.ids([id]))]
        case .purgeAll(let count):
            state.message = StatusMessage("purging all \(Format.count(count)) dead letters", severity: .warning)
            return [.purgeDeadLetters(.all)]
        case .engineKey:
            return []  // answered in ``DashboardReducer/reduce(_:_:)`` before any other key handling
        }
    }

    /// A key in the dead-letter view: move, retry, purge (after a confirmation), close.
    /// Returns `nil` for keys the view leaves to the main key map (`?`, `q`, `f`, …).
    static func handleDeadLetterKey(_ key: Key, state: inout DashboardState) -> [DashboardAction]? {
        let ids = state.deadLetterIDs
        switch key {
        case .escape, .character("d"):
            state.view = .main
            state.message = nil
            return []
        case .up, .character("k"):
            state.deadLetterCursor = max(0, state.deadLetterCursor - 1)
            return []
        case .down, .character("j"):
            state.deadLetterCursor = min(max(0, ids.count - 1), state.deadLetterCursor + 1)
            return []
        case .character("r"), .character("R"), .character("x"), .character("X"):
            guard let refusal = refusalOfEngineKeys(state) else { break }
            state.message = StatusMessage(refusal, severity: .warning)
            return []
        default:
            return nil
        }
        let all = key == .character("R") || key == .character("X")
        guard !ids.isEmpty else {
            state.message = StatusMessage("no dead letters", severity: .warning)
            return []
        }
        let id = ids[min(state.deadLetterCursor, ids.count - 1)]
        switch key {
        case .character("r"):
            state.message = StatusMessage("retrying dead letter \(id)")
            return [.retryDeadLetters(.ids([id]))]
        case .character("R"):
            state.message = StatusMessage("retrying all \(Format.count(state.deadLetterCount)) dead letters")
            return [.retryDeadLetters(.all)]
        default:
            state.confirmation = all ? .purgeAll(count: max(state.deadLetterCount, ids.count)) : .purge(id: id)
            state.message = nil
            return []
        }
    }

    /// `P`: pauses the selected destination, or resumes it when the operator paused it.
    static func togglePause(state: inout DashboardState) -> [DashboardAction] {
        guard let name = state.selectedDestinationName else {
            state.message = StatusMessage("no destination to pause yet", severity: .warning)
            return []
        }
        if state.pausedDestinations.contains(name) {
            state.pausedDestinations.remove(name)
            state.message = StatusMessage("resuming \(name): sending what waited")
            return [.resume(destination: name)]
        }
        state.pausedDestinations.insert(name)
        state.message = StatusMessage("pausing \(name): its events stay queued", severity: .warning)
        return [.pause(destination: name)]
    }

    /// `Tab`: the next destination for `P`.
    static func selectNextDestination(state: inout DashboardState) {
        guard !state.destinationNames.isEmpty else { return }
        state.selectedDestination = (state.selectedDestination + 1) % state.destinationNames.count
        state.message = StatusMessage("selected destination \(state.destinationNames[state.selectedDestination]) (P pauses or resumes it)")
    }

    /// Why engine keys cannot act now (a monitor with no engine serving the store), or `nil`.
    static func refusalOfEngineKeys(_ state: DashboardState) -> String? {
        if state.isReadOnlyByChoice { return "read-only (--read-only): no key changes the engine" }
        guard state.mode == .monitor || (state.mode == .attached && state.isReadOnlySnapshot) else { return nil }
        return "read-only monitor: this key needs a serving engine (start one on this store; the monitor attaches)"
    }
}
