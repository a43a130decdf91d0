import Beacon

extension DashboardReducer {
    /// An engine command in demo mode.
    static func perform(_ command: EngineCommand, state: inout DashboardState) -> [DashboardAction] {
        switch command {
        case .flush:
            state.message = StatusMessage("flush requested")
            return [.flush]
        case .policy:
            state.prompt = Prompt(kind: .policy)
            state.message = nil
            return []
        case .offline:
            state.isOffline.toggle()
            state.message = StatusMessage(
                state.isOffline ? "going offline: events stay queued" : "going online: sending the backlog",
                severity: state.isOffline ? .warning : .info)
            return [.setOffline(state.isOffline)]
        case .burst:
            state.message = StatusMessage("burst of \(Format.count(state.burstSize)) events")
            return [.burst(state.burstSize)]
        case .burstPrompt:
            state.prompt = Prompt(kind: .burstSize)
            state.message = nil
            return []
        case .burstHalve:
            setBurstSize(state.burstSize / 2, state: &state)
            return []
        case .burstDouble:
            setBurstSize(state.burstSize * 2, state: &state)
            return []
        case .batchUp:
            return stepBatchSize(to: state.batchSize * 2, state: &state)
        case .batchDown:
            return stepBatchSize(to: state.batchSize / 2, state: &state)
        case .rate:
            let rates = DashboardLimits.generatorRates
            let rate = rates.first(where: { $0 > state.generatorRate }) ?? rates[0]
            state.generatorRate = rate
            state.message = StatusMessage(rate == 0 ? "generator off" : "generator \(Format.count(rate)) events/s")
            return [.setGeneratorRate(rate)]
        case .faults:
            state.faultPreset = state.faultPreset.next
            state.message = StatusMessage(
                state.faultPreset.summary, severity: state.faultPreset == .none ? .info : .warning)
            return [.setFaultPreset(state.faultPreset)]
        case .syncConfig:
            guard state.hasRemoteConfig else {
                state.message = StatusMessage("no remote config to sync: start the demo with --config FILE", severity: .warning)
                return []
            }
            state.message = StatusMessage("polling the config feed now")
            return [.syncConfig]
        }
    }

    /// Doubles or halves within the allowed range; at an end it says so and sends nothing.
    private static func stepBatchSize(to wanted: Int, state: inout DashboardState) -> [DashboardAction] {
        let limits = DashboardLimits.batchSizes
        let size = min(max(wanted, limits.lowerBound), limits.upperBound)
        guard size != state.batchSize else {
            state.message = StatusMessage(
                "batch size stays \(Format.count(size)) (allowed \(Format.count(limits.lowerBound))–\(Format.count(limits.upperBound)))",
                severity: .warning)
            return []
        }
        state.batchSize = size
        state.message = StatusMessage("batch size \(Format.count(size))")
        return [.setBatchSize(size)]
    }

    /// Sets the burst size, clamped to the allowed range.
    static func setBurstSize(_ wanted: Int, state: inout DashboardState) {
        let limits = DashboardLimits.burstSizes
        state.burstSize = min(max(wanted, limits.lowerBound), limits.upperBound)
        state.message = StatusMessage("burst size \(Format.count(state.burstSize)) events")
    }
}
