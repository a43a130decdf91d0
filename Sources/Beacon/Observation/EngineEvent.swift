import BeaconWire

/// One step of the engine, as reported to the ``TrackingObserver``.
public enum EngineEvent: Sendable, Hashable {
    /// The queue committed, dropped or settled events, or its store failed or recovered.
    case queue(QueueEvent)
    /// A batch left for a destination.
    case batchStarted(id: Int64, destination: String, events: Int, bytes: Int, attempt: Int)
    /// A batch came back; its events were settled as the record says.
    case batchFinished(BatchRecord, delivered: Int, deadLettered: Int)
    /// A destination changed state.
    case destination(DestinationStatus)
    /// The settings changed (policy, batch size, offline...).
    case settings(EngineSettings)
    /// `track` refused an event.
    case rejected(TrackingError)
    /// Something failed that the engine rides out (storage read, settle...).
    case problem(String)
    /// Remote configuration changed state (see ``RemoteConfigSyncer``).
    case remoteConfig(RemoteConfigSummary)
    /// New events are refused at the queue's bound instead of pushing the oldest out
    /// (`beacon agent`'s ingest answers 503 `queue_full`); `refused` more were just refused
    /// (0 to say only how the bound acts).
    case refusedAtBound(refused: Int)
}
