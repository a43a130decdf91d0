import BeaconWire
import Synchronization

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
