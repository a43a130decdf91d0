import Beacon

extension DashboardReducer {
    /// A key while a prompt is open: edit, apply (Enter) or cancel (Esc).
    static func handlePromptKey(_ key: Key, state: inout DashboardState) -> [DashboardAction] {
        guard var prompt = state.prompt else { return [] }
        switch key {
        case .character(let character):
            if prompt.buffer.count < DashboardLimits.maxPromptLength {
                prompt.buffer.append(character)
            }
            prompt.error = nil
            state.prompt = prompt
            return []
        case .backspace:
            if !prompt.buffer.isEmpty { prompt.buffer.removeLast() }
            prompt.error = nil
            state.prompt = prompt
            return []
        case .escape:
            state.prompt = nil
            switch prompt.kind {
            case .policy: state.message = StatusMessage("policy unchanged")
            case .burstSize: state.message = StatusMessage("burst size unchanged")
            case .deadLetterSearch: state.message = StatusMessage("search unchanged")
            }
            return []
        case .enter:
            switch prompt.kind {
            case .policy: return applyPolicy(prompt, state: &state)
            case .burstSize: return applyBurstSize(prompt, state: &state)
            case .deadLetterSearch: return applyDeadLetterSearch(prompt, state: &state)
            }
        case .resize, .up, .down, .left, .right, .tab:
            return []
        }
    }

    /// `1`…`4` pick a preset; any other text goes through `FlushPolicy(parsing:)`.
    private static func applyPolicy(_ prompt: Prompt, state: inout DashboardState) -> [DashboardAction] {
        let text = prompt.buffer.trimmingSpaces()
        let presets = DashboardLimits.policyPresets
        let policy: FlushPolicy
        if let number = Int(text), (1...presets.count).contains(number) {
            policy = presets[number - 1]
        } else {
            do {
                policy = try FlushPolicy(parsing: text)
            } catch {
                // The reason alone (it quotes the text): the whole description, which adds
                // examples, does not fit 80 columns; the hint it replaces had the examples.
                return refuse(prompt, "not a policy: \(error.reason)", state: &state)
            }
        }
        state.prompt = nil
        state.message = StatusMessage("policy: \(policy.description)")
        return [.setPolicy(policy)]
    }

    /// Keeps `prompt` open with `reason` shown above it: Enter refused what was typed.
    static func refuse(_ prompt: Prompt, _ reason: String, state: inout DashboardState) -> [DashboardAction] {
        var refused = prompt
        refused.error = reason
        state.prompt = refused
        return []
    }

    /// A whole number of events within ``DashboardLimits/burstSizes``.
    private static func applyBurstSize(_ prompt: Prompt, state: inout DashboardState) -> [DashboardAction] {
        let text = prompt.buffer.trimmingSpaces().replacingCommas()
        let limits = DashboardLimits.burstSizes
        guard let size = Int(text), limits.contains(size) else {
            return refuse(
                prompt, "'\(prompt.buffer)' is not a number of events from \(Format.count(limits.lowerBound)) to \(Format.count(limits.upperBound))",
                state: &state)
        }
        state.prompt = nil
        setBurstSize(size, state: &state)
        return []
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }

    /// Without thousands separators (`10,000` reads as `10000`).
    func replacingCommas() -> String {
        filter { $0 != "," && $0 != "_" }
    }
}
