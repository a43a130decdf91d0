import Beacon

/// The fleet screen's keys: a pure function from (state, key) to (next state, actions).
///
/// On the list: `↑`/`↓` (`k`/`j`) select an engine, Enter opens it on the whole screen,
/// `?` shows the keys, `q` quits. An open engine takes every key as its own dashboard does
/// (``DashboardReducer``), confirmations and `--read-only` included; Esc, when its
/// dashboard has nothing else to close (help, a prompt, a question, the dead-letter
/// view), goes back to the list.
public enum FleetReducer {
    /// The state after `key`, and what the engines should do about it.
    public static func reduce(_ state: FleetState, _ key: Key) -> (FleetState, [FleetAction]) {
        var next = state
        if let index = state.focused, state.engines.indices.contains(index) {
            let engine = state.engines[index]
            let idle = engine.view == .main && !engine.isHelpVisible && engine.prompt == nil && engine.confirmation == nil
            if key == .escape && idle {
                next.focused = nil
                next.message = nil
                return (next, [])
            }
            let (changed, actions) = DashboardReducer.reduce(engine, key)
            next.engines[index] = changed
            if actions.contains(.quit) {
                next.isQuitting = true
                return (next, [.quit])
            }
            return (next, actions.map { .engine(index, $0) })
        }
        next.message = nil
        switch key {
        case .up, .character("k"):
            next.cursor = max(0, state.cursor - 1)
        case .down, .character("j"):
            next.cursor = min(max(0, state.names.count - 1), state.cursor + 1)
        case .enter:
            guard state.names.indices.contains(state.cursor) else { return (next, []) }
            next.focused = state.cursor
            next.isHelpVisible = false
        case .character("?"):
            next.isHelpVisible.toggle()
        case .escape:
            next.isHelpVisible = false
        case .character("q"):
            next.isQuitting = true
            return (next, [.quit])
        case .character(let character):
            next.message = StatusMessage("on the list of engines '\(character)' does nothing: Enter opens the selected engine, ? lists the keys",
                                         severity: .warning)
        case .tab, .left, .right, .backspace, .resize:
            break
        }
        return (next, [])
    }
}
