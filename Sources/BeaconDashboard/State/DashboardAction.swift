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
