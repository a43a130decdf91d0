import Beacon
import BeaconCollector
import BeaconDashboard
import BeaconWire
import Logging

/// Carries out the dashboard's actions on the demo's engine, collector and generator.
///
/// | action | effect |
/// |--------|--------|
/// | `flush`, `setPolicy`, `setOffline`, `setBatchSize`, `pause`, `resume`, `retryNow`, dead letters | ``BeaconEngine/operate(_:)`` with the action's ``DashboardAction/controlCommand``, as `ctl` would |
/// | `burst(n)` | n catalogue events tracked on a background task (the UI never waits) |
/// | `setGeneratorRate` | the generator's rate |
/// | `setFaultPreset` | `collector.setFaultPlan(FaultPlan.preset(named:))` |
/// | `syncConfig` | `syncer.syncNow()` on a background task, when `--config` runs one |
/// | `quit` | nothing here: the session does the bounded final flush after the screen closes |
struct DemoControls: Sendable {
    let engine: BeaconEngine<ContinuousClock>
    let collector: Collector
    let generator: DemoGenerator
    let logger: Logger
    /// The remote-config syncer, with `--config`.
    var syncer: RemoteConfigSyncer<ContinuousClock>? = nil

    /// Engine actions go through ``BeaconEngine/operate(_:)``, as `ctl`'s would: refused
    /// ones say why on the screen, and each is kept in the operator log.
    func perform(_ action: DashboardAction) async -> CommandAnswer {
        if let command = action.controlCommand {
            switch await engine.operate(command) {
            case .success:
                return .applied
            case .failure(let refusal):
                logger.warning("the engine refused a command", metadata: ["command": "\(command.name)", "reason": "\(refusal.reason)"])
                return .refused(PrintableText.line(refusal.reason))
            }
        }
        switch action {
        case .burst(let count):
            let generator = generator
            Task.detached(priority: .utility) { generator.burst(count) }
        case .setGeneratorRate(let rate):
            generator.setRate(rate)
        case .setFaultPreset(let preset):
            setFaults(preset)
        case .syncConfig:
            guard let syncer else {
                logger.warning("config sync asked for, but this demo runs no remote config")
                return .applied
            }
            Task { await syncer.syncNow() }  // the status reaches the screen through the observer
        case .flush, .setPolicy, .setOffline, .setBatchSize, .pause, .resume, .retryNow, .retryDeadLetters, .purgeDeadLetters, .quit:
            break  // engine actions are carried out above; quit: the session does the final flush
        }
        return .applied
    }

    private func setFaults(_ preset: FaultPreset) {
        guard let plan = FaultPlan.preset(named: preset.rawValue) else {
            logger.error("the collector has no fault preset of this name", metadata: ["preset": "\(preset.rawValue)"])
            return
        }
        do {
            try collector.setFaultPlan(plan)
        } catch {
            logger.error("the collector refused the fault preset", metadata: ["preset": "\(preset.rawValue)", "error": "\(error)"])
        }
    }
}
