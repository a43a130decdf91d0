import Beacon
import BeaconCollector
import BeaconDashboard
import Logging

/// Carries out the dashboard's actions on the demo's engine, collector and generator.
///
/// | action | effect |
/// |--------|--------|
/// | `flush` | `engine.flush()` |
/// | `setPolicy` / `setOffline` / `setBatchSize` | the engine's live settings |
/// | `burst(n)` | n catalogue events tracked on a background task (the UI never waits) |
/// | `setGeneratorRate` | the generator's rate |
/// | `setFaultPreset` | `collector.setFaultPlan(FaultPlan.preset(named:))` |
/// | `syncConfig` | `syncer.syncNow()` on a background task, when `--config` runs one |
/// | `pause` / `resume` | `engine.pause(destination:)` / `engine.resume(destination:)` |
/// | `retryDeadLetters` / `purgeDeadLetters` | `engine.retryDeadLetters(_:)` / `engine.purgeDeadLetters(_:)` |
/// | `quit` | nothing here: the session does the bounded final flush after the screen closes |
struct DemoControls: Sendable {
    let engine: BeaconEngine<ContinuousClock>
    let collector: Collector
    let generator: DemoGenerator
    let logger: Logger
    /// The remote-config syncer, with `--config`.
    var syncer: RemoteConfigSyncer<ContinuousClock>? = nil

    func perform(_ action: DashboardAction) async {
        switch action {
        case .flush:
            await engine.flush()
        case .setPolicy(let policy):
            engine.setPolicy(policy)
        case .setOffline(let offline):
            engine.setOffline(offline)
        case .burst(let count):
            let generator = generator
            Task.detached(priority: .utility) { generator.burst(count) }
        case .setBatchSize(let size):
            engine.setBatchSize(size)
        case .setGeneratorRate(let rate):
            generator.setRate(rate)
        case .setFaultPreset(let preset):
            setFaults(preset)
        case .syncConfig:
            guard let syncer else {
                logger.warning("config sync asked for, but this demo runs no remote config")
                return
            }
            Task { await syncer.syncNow() }  // the status reaches the screen through the observer
        case .pause(let name):
            do { try await engine.pause(destination: name) } catch { logger.warning("cannot pause", metadata: ["error": "\(error)"]) }
        case .resume(let name):
            do { try await engine.resume(destination: name) } catch { logger.warning("cannot resume", metadata: ["error": "\(error)"]) }
        case .retryNow(let name):
            do { try await engine.retryNow(destination: name) } catch { logger.warning("cannot retry now", metadata: ["error": "\(error)"]) }
        case .retryDeadLetters(let selection):
            do {
                _ = try await engine.retryDeadLetters(selection)
            } catch {
                logger.error("cannot retry dead letters", metadata: ["error": "\(error)"])
            }
        case .purgeDeadLetters(let selection):
            do {
                _ = try await engine.purgeDeadLetters(selection)
            } catch {
                logger.error("cannot purge dead letters", metadata: ["error": "\(error)"])
            }
        case .quit:
            break
        }
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
