import Beacon
import BeaconDashboard

/// One engine of the fleet screen: its name, its snapshots, where its dead letters are
/// read, and what carries out its actions.
public struct FleetEngine: Sendable {
    public var name: String
    public var snapshots: AsyncStream<EngineSnapshot>
    public var deadLetters: (any DeadLetterReading)?
    /// Where its pending-events view reads the queue.
    public var pendingEvents: (any PendingEventReading)?
    /// Where its operator-log view reads.
    public var operatorActions: (any OperatorActionReading)?
    /// Carries out one action and says what it answered (see ``runDashboard(snapshots:mode:initialState:deadLetters:pendingEvents:operatorActions:perform:)``).
    public var perform: @Sendable (DashboardAction) async -> CommandAnswer

    public init(
        name: String, snapshots: AsyncStream<EngineSnapshot>, deadLetters: (any DeadLetterReading)? = nil,
        pendingEvents: (any PendingEventReading)? = nil, operatorActions: (any OperatorActionReading)? = nil, perform: @escaping @Sendable (DashboardAction) async -> CommandAnswer
    ) {
        self.name = name
        self.snapshots = snapshots
        self.deadLetters = deadLetters
        self.pendingEvents = pendingEvents
        self.operatorActions = operatorActions
        self.perform = perform
    }
}
