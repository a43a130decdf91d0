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
        case .purge(let target):
            state.message = StatusMessage("purging \(describe(target))", severity: .warning)
            state.workbench.marked = []
            state.workbench.detail = nil
            return [.purgeDeadLetters(target.selection)]
        case .engineKey:
            return []  // answered in ``DashboardReducer/reduce(_:_:)`` before any other key handling
        }
    }

    /// A key in the dead-letter view: move, mark (Space), search (`/`), open the detail
    /// pane (Enter), retry, purge (after a confirmation), close. Returns `nil` for keys the
    /// view leaves to the main key map (`?`, `q`, `f`, …).
    static func handleDeadLetterKey(_ key: Key, state: inout DashboardState) -> [DashboardAction]? {
        if state.workbench.detail != nil, let actions = handleDetailKey(key, state: &state) { return actions }
        let ids = state.deadLetterIDs
        switch key {
        case .escape where !state.workbench.marked.isEmpty:
            state.workbench.marked = []
            state.message = StatusMessage("marks cleared")
            return []
        case .escape, .character("d"):
            state.view = .main
            state.workbench.detail = nil
            state.message = nil
            return []
        case .up, .character("k"):
            state.deadLetterCursor = max(0, state.deadLetterCursor - 1)
            return []
        case .down, .character("j"):
            state.deadLetterCursor = min(max(0, ids.count - 1), state.deadLetterCursor + 1)
            return []
        case .character("/"):
            state.prompt = Prompt(kind: .deadLetterSearch, buffer: state.workbench.query.description)
            state.message = nil
            return []
        case .enter:
            guard let id = cursorLetter(state) else {
                state.message = StatusMessage("no dead letter to open", severity: .warning)
                return []
            }
            state.workbench.detail = DeadLetterWorkbench.Detail(id: id)
            return []
        case .character(" "):
            guard let id = cursorLetter(state) else { return [] }
            if state.workbench.marked.remove(id) == nil { state.workbench.marked.insert(id) }
            state.deadLetterCursor = min(max(0, ids.count - 1), state.deadLetterCursor + 1)
            state.message = StatusMessage("\(state.workbench.marked.count) marked: r retries them, x purges them")
            return []
        case .character("r"), .character("R"), .character("x"), .character("X"):
            return actOnLetters(key, state: &state)
        default:
            return nil
        }
    }

    /// Keys of the open detail pane: scroll, close, and retry or purge its letter; `nil`
    /// for the keys the main map answers.
    private static func handleDetailKey(_ key: Key, state: inout DashboardState) -> [DashboardAction]? {
        guard let detail = state.workbench.detail else { return nil }
        switch key {
        case .escape, .enter, .character("d"):
            state.workbench.detail = nil
            return []
        case .up, .character("k"):
            state.workbench.detail?.scroll = max(0, detail.scroll - 1)
            return []
        case .down, .character("j"):
            state.workbench.detail?.scroll = min(DashboardLimits.maxDetailScroll, detail.scroll + 1)
            return []
        case .character("r"), .character("x"):
            return actOn(.ids([detail.id]), retry: key == .character("r"), state: &state)
        case .character("R"), .character("X"), .character(" "), .character("/"):
            state.message = StatusMessage("close the letter first (Esc)", severity: .warning)
            return []
        default:
            return nil
        }
    }

    /// `r`/`x`: the marked letters, or the one under the cursor; `R`/`X`: every letter the
    /// search finds (every letter without a search). Purges wait for `y`.
    private static func actOnLetters(_ key: Key, state: inout DashboardState) -> [DashboardAction] {
        if let refusal = refusalOfEngineKeys(state) {
            state.message = StatusMessage(refusal, severity: .warning)
            return []
        }
        guard !state.deadLetterIDs.isEmpty else {
            state.message = StatusMessage(state.workbench.query.isEmpty ? "no dead letters" : "no dead letter matches the search",
                                          severity: .warning)
            return []
        }
        let retry = key == .character("r") || key == .character("R")
        let target: DashboardState.DeadLetterTarget
        if key == .character("R") || key == .character("X") {
            let query = state.workbench.query
            let total = max(state.deadLetterCount, state.deadLetterIDs.count)
            target = query.isEmpty ? .all(count: total)
                : .matching(query, count: state.workbench.results.map { $0.query == query ? $0.total : state.deadLetterIDs.count }
                                ?? state.deadLetterIDs.count)
        } else if !state.workbench.marked.isEmpty {
            target = .ids(state.deadLetterIDs.filter(state.workbench.marked.contains))
        } else if let id = cursorLetter(state) {
            target = .ids([id])
        } else {
            return []
        }
        return actOn(target, retry: retry, state: &state)
    }

    /// A retry now, or a purge once confirmed.
    private static func actOn(_ target: DashboardState.DeadLetterTarget, retry: Bool, state: inout DashboardState) -> [DashboardAction] {
        if let refusal = refusalOfEngineKeys(state) {
            state.message = StatusMessage(refusal, severity: .warning)
            return []
        }
        guard retry else {
            state.confirmation = .purge(target)
            state.message = nil
            return []
        }
        state.message = StatusMessage("retrying \(describe(target))")
        state.workbench.marked = []
        state.workbench.detail = nil
        return [.retryDeadLetters(target.selection)]
    }

    /// The letter under the cursor, if any.
    private static func cursorLetter(_ state: DashboardState) -> Int64? {
        let ids = state.deadLetterIDs
        return ids.isEmpty ? nil : ids[min(state.deadLetterCursor, ids.count - 1)]
    }

    /// What a target is, in a few words: `dead letter 105`, `3 dead letters`, `all 7 dead
    /// letters`, `the 4 dead letters matching 'reason:too_large'`.
    static func describe(_ target: DashboardState.DeadLetterTarget) -> String {
        switch target {
        case .ids(let ids) where ids.count == 1: return "dead letter \(ids[0])"
        case .ids(let ids): return "\(ids.count) dead letters"
        case .all(let count): return "all \(Format.count(count)) dead letters"
        case .matching(let query, let count):
            return "the \(Format.count(count)) dead letter\(count == 1 ? "" : "s") matching '\(query)'"
        }
    }

    /// Enter on the search prompt: the query it reads, or the reason it does not.
    static func applyDeadLetterSearch(_ prompt: Prompt, state: inout DashboardState) -> [DashboardAction] {
        let query: DeadLetterQuery
        do {
            query = try DeadLetterQuery(parsing: prompt.buffer)
        } catch {
            return refuse(prompt, error.description, state: &state)
        }
        state.prompt = nil
        state.workbench.query = query
        state.workbench.marked = []
        state.workbench.detail = nil
        state.deadLetterCursor = 0
        // Until the store is read for the new search, nothing is listed, so no key acts on
        // a letter of the old list.
        state.deadLetterIDs = []
        state.message = StatusMessage(query.isEmpty ? "search cleared: every dead letter" : "searching dead letters: \(query)")
        return []
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
