import Beacon

extension DashboardReducer {
    /// A key in the pending-events view, or `nil` to handle it as anywhere else: `↑`/`↓`
    /// (`k`/`j`) move the cursor over the listed events, `g`/`G` go to the
    /// oldest and the newest, `e` or Esc close the view. The view only reads: it has no
    /// key that changes the engine.
    static func handlePendingEventsKey(_ key: Key, state: inout DashboardState) -> [DashboardAction]? {
        let count = state.pendingEvents.page?.events.count ?? 0
        switch key {
        case .escape, .character("e"):
            state.view = .main
            state.message = nil
            return []
        case .up, .character("k"):
            state.pendingEvents.cursor = max(0, state.pendingEvents.cursor - 1)
            return []
        case .down, .character("j"):
            state.pendingEvents.cursor = min(max(0, count - 1), state.pendingEvents.cursor + 1)
            return []
        case .character("g"):
            state.pendingEvents.cursor = 0
            return []
        case .character("G"):
            state.pendingEvents.cursor = max(0, count - 1)
            return []
        case .tab:
            // The view follows the selected destination: a new page is read for it.
            selectNextDestination(state: &state)
            state.pendingEvents.cursor = 0
            return []
        default:
            return nil
        }
    }
}
