import Beacon

/// What each key does: a pure function from (state, key) to (next state, actions).
///
/// Key map (demo mode):
///
/// | key | effect |
/// |-----|--------|
/// | `f` | flush now |
/// | `p` | policy prompt: `1` manual, `2` count 100, `3` every 5s, `4` count 100 or 5s, or typed text; Enter applies, Esc cancels |
/// | `o` | toggle offline |
/// | `b` | burst of N events (N starts at 500) |
/// | `B` | prompt for N; `[` halves N, `]` doubles it (1…100,000) |
/// | `+` / `-` | double / halve the batch size (1…10,000) |
/// | `r` | cycle the generator rate: off, 10/s, 100/s, 1000/s |
/// | `c` | cycle collector faults: none, flaky, down, slow |
/// | `s` | poll the remote config feed now (with `beacon demo --config`) |
/// | `P` | pause the selected destination, or resume it (its events stay queued while paused) |
/// | `Tab` | select the next destination for `P` |
/// | `d` | the dead-letter view: `↑`/`↓` (`k`/`j`) select, Space mark, Enter the whole letter and its attempts, `/` search (`dest:NAME reason:TEXT TEXT`), `r` retry the marked (or selected) letters, `R` retry every letter the search finds, `x`/`X` the same for purge (both ask `y`), Esc clear marks or close, `d` close |
/// | `n` | the event-name view: the busiest names, counts and rates; `n` closes it |
/// | `e` | the pending-events view: the queue's oldest and newest events (the selected destination's when there are several), `↑`/`↓` select, the selected one's JSON below; `e` or Esc close it |
/// | `l` | the operator log: the commands kept in the store (who, when, applied or refused); `l` or Esc close it |
/// | `?` | help: the keys, then (`?` again) what each figure means; Esc closes it |
/// | `q` | quit |
///
/// In monitor mode only `?`, Esc, `q`, `d` (to look) and `Tab` act; the engine keys leave a
/// message saying the monitor is read-only and needs a serving engine. Attached, `f`, `p`, `o`, `+`, `-`, `P`, `R` and the
/// dead-letter keys act on the engine, each only once confirmed with `y` (it is a live
/// engine); the demo's own keys (`b`, `B`, `[`, `]`, `r`, `c`, `s`) leave a message saying
/// so; and while no engine answers (a read-only snapshot) it behaves as the monitor.
/// `monitor --read-only` (``DashboardState/isReadOnlyByChoice``) refuses every key that
/// would change the engine.
///
/// ```swift
/// let (next, actions) = DashboardReducer.reduce(state, .character("f"))   // actions == [.flush]
/// ```
public enum DashboardReducer {
    /// The state after `key`, and what the engine should do about it.
    public static func reduce(_ state: DashboardState, _ key: Key) -> (DashboardState, [DashboardAction]) {
        if case .engineKey(let pending, let label)? = state.confirmation {
            var next = state
            next.confirmation = nil
            guard key == .character("y") || key == .character("Y") else {
                next.message = StatusMessage("not done: \(label)")
                return (next, [])
            }
            return act(next, pending)
        }
        let (next, actions) = act(state, key)
        // A live engine is changed only once confirmed: the state stays as before the key.
        guard state.mode == .attached, state.confirmation == nil, !actions.isEmpty, !actions.contains(.quit) else {
            return (next, actions)
        }
        var asking = state
        let label = describe(actions)
        asking.confirmation = .engineKey(key, label: label)
        asking.message = StatusMessage("\(label) on the live engine? y confirms, any other key cancels", severity: .warning)
        return (asking, [])
    }

    /// What `actions` do, in a few words, for a confirmation.
    static func describe(_ actions: [DashboardAction]) -> String {
        actions.map { action in
            switch action {
            case .flush: return "flush"
            case .setPolicy(let policy): return "set the policy to '\(policy)'"
            case .setOffline(let offline): return offline ? "take the engine offline" : "bring the engine online"
            case .setBatchSize(let size): return "set the batch size to \(Format.count(size))"
            case .pause(let name): return "pause \(name)"
            case .resume(let name): return "resume \(name)"
            case .retryNow(let name): return "retry \(name) now"
            case .retryDeadLetters(let selection): return "retry " + describe(selection)
            case .purgeDeadLetters(let selection): return "purge " + describe(selection)
            case .burst, .setGeneratorRate, .setFaultPreset, .syncConfig, .quit: return "that"
            }
        }.joined(separator: ", ")
    }

    /// Which dead letters, in a few words.
    static func describe(_ selection: DeadLetterSelection) -> String {
        switch selection {
        case .all: return "every dead letter"
        case .ids(let ids):
            let shown = ids.prefix(5).map(String.init).joined(separator: ", ") + (ids.count > 5 ? " and \(ids.count - 5) more" : "")
            return "dead letter\(ids.count == 1 ? "" : "s") \(shown)"
        case .matching(let query): return "every dead letter matching '\(query)'"
        }
    }

    /// What `key` does, confirmed or not needing it.
    private static func act(_ state: DashboardState, _ key: Key) -> (DashboardState, [DashboardAction]) {
        var next = state
        if next.prompt != nil {
            let actions = handlePromptKey(key, state: &next)
            return (next, actions)
        }
        if next.confirmation != nil {
            let actions = handleConfirmationKey(key, state: &next)
            return (next, actions)
        }
        if next.view == .deadLetters, !next.isHelpVisible, let actions = handleDeadLetterKey(key, state: &next) {
            return (next, actions)
        }
        if next.view == .pendingEvents, !next.isHelpVisible, let actions = handlePendingEventsKey(key, state: &next) {
            return (next, actions)
        }
        switch key {
        case .tab:
            selectNextDestination(state: &next)
            return (next, [])
        case .resize, .up, .down, .left, .right:
            return (next, [])
        case .escape:
            if next.isHelpVisible {
                next.isHelpVisible = false
            } else if next.view == .operatorLog || next.view == .eventNames {
                next.view = .main
            } else {
                next.message = nil
            }
            return (next, [])
        case .enter, .backspace:
            return (next, [])
        case .character(let character):
            let actions = handleCommand(character, state: &next)
            return (next, actions)
        }
    }

    /// A command key outside any prompt.
    private static func handleCommand(_ character: Character, state: inout DashboardState) -> [DashboardAction] {
        switch character {
        case "?":
            // Keys, then the legend of the figures, then closed.
            if !state.isHelpVisible {
                state.isHelpVisible = true
                state.helpPage = .keys
            } else if state.helpPage == .keys {
                state.helpPage = .figures
            } else {
                state.isHelpVisible = false
            }
            return []
        case "q":
            state.isQuitting = true
            state.message = StatusMessage("quitting: final flush…")
            return [.quit]
        case "n":
            state.view = state.view == .eventNames ? .main : .eventNames
            state.message = nil
            return []
        case "l":
            state.view = state.view == .operatorLog ? .main : .operatorLog
            state.message = nil
            return []
        case "e":
            state.view = .pendingEvents
            state.pendingEvents.cursor = 0
            state.message = nil
            return []
        case "d":
            state.view = state.view == .deadLetters ? .main : .deadLetters
            state.deadLetterCursor = 0
            state.message = nil
            return []
        case "P":
            if let refusal = refusalOfEngineKeys(state) {
                state.message = StatusMessage(refusal, severity: .warning)
                return []
            }
            return togglePause(state: &state)
        case "R":
            if let refusal = refusalOfEngineKeys(state) {
                state.message = StatusMessage(refusal, severity: .warning)
                return []
            }
            guard let name = state.selectedDestinationName else {
                state.message = StatusMessage("no destination to retry yet", severity: .warning)
                return []
            }
            // What the key asks for, as the destination was last seen: a backoff to end, or
            // none (the engine answers either way; a pause stays, `P` lifts it).
            if state.backingOffDestinations.contains(name) {
                state.message = StatusMessage("retry now: ending \(name)'s backoff")
            } else if state.stoppedDestinations.contains(name) {
                state.message = StatusMessage("retry now: \(name) is paused, not backing off (P resumes it)", severity: .warning)
            } else {
                state.message = StatusMessage("retry now: \(name) is not backing off; nothing to cut short", severity: .warning)
            }
            return [.retryNow(destination: name)]
        default:
            break
        }
        guard let command = EngineCommand(rawValue: character) else {
            state.message = StatusMessage("no command on '\(character)': press ? for help", severity: .warning)
            return []
        }
        if state.isReadOnlyByChoice {
            state.message = StatusMessage("read-only (--read-only): '\(character)' (\(command.label)) changes nothing", severity: .warning)
            return []
        }
        if state.mode == .monitor || (state.mode == .attached && state.isReadOnlySnapshot) {
            // The demo's knobs are the demo's; the engine's keys work on any serving engine
            // (an agent, an app's engine: this monitor attaches, and `beacon ctl` does the same).
            let text = command.isDemoOnly
                ? "read-only monitor: '\(character)' (\(command.label)) works in beacon demo only"
                : "read-only monitor: '\(character)' (\(command.label)) needs a serving engine (start one on this store; "
                    + "the monitor attaches, and beacon ctl does the same)"
            state.message = StatusMessage(text, severity: .warning)
            return []
        }
        if state.mode == .attached && command.isDemoOnly {
            state.message = StatusMessage("'\(character)' (\(command.label)) works in beacon demo only", severity: .warning)
            return []
        }
        return perform(command, state: &state)
    }
}

/// The keys that change the engine or the demo, refused in monitor mode.
enum EngineCommand: Character {
    case flush = "f"
    case policy = "p"
    case offline = "o"
    case burst = "b"
    case burstPrompt = "B"
    case burstHalve = "["
    case burstDouble = "]"
    case batchUp = "+"
    case batchDown = "-"
    case rate = "r"
    case faults = "c"
    case syncConfig = "s"

    /// Whether the key drives the demo's generator, collector or feed rather than the engine.
    var isDemoOnly: Bool {
        switch self {
        case .flush, .policy, .offline, .batchUp, .batchDown: return false
        case .burst, .burstPrompt, .burstHalve, .burstDouble, .rate, .faults, .syncConfig: return true
        }
    }

    /// What the key does, in a few words.
    var label: String {
        switch self {
        case .flush: return "flush"
        case .policy: return "flush policy"
        case .offline: return "offline"
        case .burst: return "burst"
        case .burstPrompt, .burstHalve, .burstDouble: return "burst size"
        case .batchUp, .batchDown: return "batch size"
        case .rate: return "generator rate"
        case .faults: return "collector faults"
        case .syncConfig: return "config sync"
        }
    }
}
