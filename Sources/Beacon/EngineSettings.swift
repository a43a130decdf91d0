import BeaconWire
import Synchronization

/// The settings an engine reads on every decision, changeable while it runs (from the
/// dashboard, the API or remote configuration).
public struct EngineSettings: Sendable, Hashable {
    /// When to send. Default ``FlushPolicy/default`` (100 events or 5 s).
    public var policy: FlushPolicy = .default
    /// Events per batch at most. Default 100.
    public var batchSize: Int = 100
    /// Bytes of event JSON per batch at most. Default 500 KB (the collector's limit).
    public var maxBatchBytes: Int = WireLimits.maxBatchBytes
    /// Whether sending is switched off (events keep queueing). Default `false`.
    public var isOffline = false

    public init(policy: FlushPolicy = .default, batchSize: Int = 100, maxBatchBytes: Int = WireLimits.maxBatchBytes, isOffline: Bool = false) {
        self.policy = policy
        self.batchSize = batchSize
        self.maxBatchBytes = maxBatchBytes
        self.isOffline = isOffline
    }
}

/// Holds the current ``EngineSettings`` and tells subscribers when they change.
public final class SettingsStore: Sendable {
    private let settings: Mutex<EngineSettings>
    private let listeners = Mutex<[@Sendable (EngineSettings) -> Void]>([])

    public init(_ initial: EngineSettings = EngineSettings()) {
        settings = Mutex(initial)
    }

    /// The settings now.
    public var current: EngineSettings { settings.withLock { $0 } }

    /// Changes the settings; subscribers hear of it when anything changed.
    public func update(_ change: (inout EngineSettings) -> Void) {
        let (before, after) = settings.withLock { settings -> (EngineSettings, EngineSettings) in
            let before = settings
            change(&settings)
            settings.batchSize = max(1, settings.batchSize)
            settings.maxBatchBytes = max(1024, settings.maxBatchBytes)
            return (before, settings)
        }
        guard before != after else { return }
        for listener in listeners.withLock({ $0 }) { listener(after) }
    }

    /// Subscribes to changes.
    public func onChange(_ listener: @escaping @Sendable (EngineSettings) -> Void) {
        listeners.withLock { $0.append(listener) }
    }
}
