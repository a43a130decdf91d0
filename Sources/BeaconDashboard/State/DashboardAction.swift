import Beacon

/// What the dashboard asks the engine (or the demo around it) to do.
///
/// The reducer returns these; the run loop hands each to the caller's `perform` closure.
public enum DashboardAction: Sendable, Hashable {
    /// Send what is queued now.
    case flush
    /// Use this flush policy from now on.
    case setPolicy(FlushPolicy)
    /// Switch sending off (`true`) or back on (`false`).
    case setOffline(Bool)
    /// Track this many synthetic events at once.
    case burst(Int)
    /// Use this many events per batch at most.
    case setBatchSize(Int)
    /// Generate this many synthetic events per second (0: off). Demo only.
    case setGeneratorRate(Int)
    /// Make the demo collector misbehave this way. Demo only.
    case setFaultPreset(FaultPreset)
    /// Poll the remote config feed now instead of waiting for the interval.
    case syncConfig
    /// Pause this destination (its events stay queued).
    case pause(destination: String)
    /// Resume this destination and drain what waited.
    case resume(destination: String)
    /// End this destination's backoff: its failed batch is tried again now.
    case retryNow(destination: String)
    /// Send these dead letters back into the queue.
    case retryDeadLetters(DeadLetterSelection)
    /// Delete these dead letters.
    case purgeDeadLetters(DeadLetterSelection)
    /// Leave the dashboard. The caller does a bounded final flush afterwards.
    case quit
}

extension DashboardAction {
    /// The control command that carries this action out on an engine, whether the console
    /// runs in its process (the demo, ``BeaconEngine/operate(_:)``) or is attached to it
    /// (`ctl`'s channel): one mapping, so a key means what its `ctl` command means.
    /// `nil` for what is the demo's own (bursts, the generator, faults, config) or nothing (quit).
    public var controlCommand: ControlCommand? {
        switch self {
        case .flush: .flush
        case .setPolicy(let policy): .policy(policy.description)
        case .setOffline(let offline): offline ? .offline : .online
        case .setBatchSize(let size): .batchSize(size)
        case .pause(let name): .pause(destination: name)
        case .resume(let name): .resume(destination: name)
        case .retryNow(let name): .retryNow(destination: name)
        case .retryDeadLetters(let selection): .deadRetry(selection)
        case .purgeDeadLetters(let selection): .deadPurge(selection)
        case .burst, .setGeneratorRate, .setFaultPreset, .syncConfig, .quit: nil
        }
    }
}
