import Beacon

/// Everything the dashboard shows that does not come from the engine: overlays, prompts,
/// messages and the demo's knobs. A plain value; the reducer makes the next one.
public struct DashboardState: Sendable, Hashable {
    /// Demo (keys drive the engine) or monitor (read-only).
    public var mode: DashboardMode
    /// Whether the key help overlay is shown.
    public var isHelpVisible: Bool = false
    /// The prompt being typed in, if any.
    public var prompt: Prompt?
    /// Events sent by `b`.
    public var burstSize: Int = DashboardLimits.defaultBurstSize
    /// A one-line message about the last key, if any.
    public var message: StatusMessage?
    /// The demo collector's fault preset.
    public var faultPreset: FaultPreset = .none
    /// The demo generator's rate in events per second (0: off).
    public var generatorRate: Int = 0
    /// Whether the engine is offline, as last seen (kept so `o` knows what to toggle).
    public var isOffline: Bool = false
    /// The engine's batch size, as last seen (kept so `+`/`-` know where to step from).
    public var batchSize: Int = 100
    /// Whether remote configuration reports to the engine, as last seen (kept so `s`
    /// knows whether there is a feed to poll).
    public var hasRemoteConfig: Bool = false
    /// Whether the last snapshot came from a store nobody answers for (a read-only
    /// monitor), so engine keys have nothing to act on.
    public var isReadOnlySnapshot: Bool = false
    /// Set once `q` was pressed.
    public var isQuitting: Bool = false

    /// A fresh state for `mode`.
    public init(mode: DashboardMode) {
        self.mode = mode
    }

    /// Takes the engine-owned facts the reducer needs (offline flag, batch size) from
    /// `snapshot`. Call it when a new snapshot arrives.
    public mutating func observe(_ snapshot: EngineSnapshot) {
        isOffline = snapshot.isOffline
        if let size = snapshot.batchSize { batchSize = size }
        hasRemoteConfig = snapshot.remoteConfig != nil
        isReadOnlySnapshot = snapshot.isReadOnlyMonitor
    }
}
