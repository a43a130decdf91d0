import Beacon

/// Everything the dashboard shows that does not come from the engine: overlays, prompts,
/// messages and the demo's knobs. A plain value; the reducer makes the next one.
public struct DashboardState: Sendable, Hashable {
    /// Demo (keys drive the engine) or monitor (read-only).
    public var mode: DashboardMode
    /// Whether the help overlay is shown.
    public var isHelpVisible: Bool = false
    /// Which page of the help is shown: the keys, or what each figure means (`?` again).
    public var helpPage: HelpPage = .keys
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
    /// `beacon monitor --read-only`: every key that would change the engine is refused
    /// with a message, attached or not.
    public var isReadOnlyByChoice: Bool = false
    /// Set once `q` was pressed.
    public var isQuitting: Bool = false
    /// A line the title shows in place of the mode tag (the running step of `beacon
    /// simulate --watch`); `nil` shows the tag.
    public var caption: String?
    /// The main panels, or the dead-letter list (`d`).
    public var view: View = .main
    /// The dead letter under the cursor in the dead-letter view (an index into
    /// ``deadLetterIDs``).
    public var deadLetterCursor: Int = 0
    /// A destructive key waiting for `y` (k9s-style), if any.
    public var confirmation: Confirmation?
    /// The destination `P` pauses or resumes (an index into ``destinationNames``); `Tab`
    /// moves it.
    public var selectedDestination: Int = 0
    /// The destinations, as last seen.
    public var destinationNames: [String] = []
    /// The destinations paused by the operator, as last seen (so `P` knows what to toggle).
    public var pausedDestinations: Set<String> = []
    /// The destinations backing off, and those paused either way, as last seen (so `R`
    /// says what it asks for).
    public var backingOffDestinations: Set<String> = []
    public var stoppedDestinations: Set<String> = []
    /// The listed dead letters' ids, newest first, as last seen (those the search finds).
    public var deadLetterIDs: [Int64] = []
    /// Set when this engine is open from the fleet list (`beacon monitor` with several
    /// stores): the footer says which, and that Esc goes back.
    public var fleetPosition: FleetPosition?
    /// The dead-letter view's search, marks, detail pane and last read.
    public var workbench = DeadLetterWorkbench()
    /// Dead letters in the store, as last seen.
    public var deadLetterCount: Int = 0
    /// The pending-events view's last read and cursor.
    public var pendingEvents = PendingEventsView()
    /// The operator-log view's last read.
    public var operatorLog = OperatorLogView()

    /// What the screen shows between the queue graph and the outcomes.
    public enum View: Sendable, Hashable {
        /// Batch history and destinations.
        case main
        /// The dead letters, with a cursor; retry and purge act on them.
        case deadLetters
        /// The names the engine accepted most events under (`n`).
        case eventNames
        /// The oldest and newest events still queued, with the selected one's JSON (`e`).
        case pendingEvents
        /// The commands operators gave the engine, kept in the store (`l`).
        case operatorLog
    }

    /// The help overlay's pages, in the order `?` shows them.
    public enum HelpPage: Sendable, Hashable {
        /// Every key.
        case keys
        /// What each figure on the screen counts: the legend.
        case figures
    }

    /// What a dead-letter retry or purge acts on, for its confirmation.
    public enum DeadLetterTarget: Sendable, Hashable {
        /// These letters (the marked ones, or the one under the cursor).
        case ids([Int64])
        /// Every letter the search finds (`count` as last read).
        case matching(DeadLetterQuery, count: Int)
        /// Every letter (`count` as last seen).
        case all(count: Int)

        /// The selection the engine acts on.
        public var selection: DeadLetterSelection {
            switch self {
            case .ids(let ids): return .ids(ids)
            case .matching(let query, _): return .matching(query)
            case .all: return .all
            }
        }
    }

    /// A destructive action asked for and not yet confirmed.
    public enum Confirmation: Sendable, Hashable {
        /// Purge these dead letters.
        case purge(DeadLetterTarget)
        /// A key that changes the live engine a monitor is attached to: pressed again as
        /// this key once confirmed. `label` says what it does.
        case engineKey(Key, label: String)
    }

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
        destinationNames = snapshot.destinations.map(\.name)
        pausedDestinations = Set(snapshot.destinations.filter { $0.state == .pausedByOperator }.map(\.name))
        backingOffDestinations = Set(snapshot.destinations.filter { $0.state.nextRetryAt != nil }.map(\.name))
        stoppedDestinations = Set(snapshot.destinations.filter(\.state.isPaused).map(\.name))
        if selectedDestination >= destinationNames.count { selectedDestination = 0 }
        deadLetterCount = snapshot.deadLetters
        listDeadLetters(workbench.letters(in: snapshot).letters)
    }

    /// Takes what the run loop read for the dead-letter view: the letters the search finds,
    /// and the open detail pane's whole letter.
    /// `detail` is the letter read for the pane, `nil` when it is no longer in the store.
    public mutating func receive(_ results: DeadLetterWorkbench.Results, detail: (id: Int64, letter: DeadLetter?)? = nil) {
        workbench.results = results
        if let detail, workbench.detail?.id == detail.id { workbench.detail?.letter = detail.letter }
        if results.query == workbench.query { listDeadLetters(results.letters) }
    }

    /// The listed letters changed: ids follow them, the cursor stays on the list, and
    /// marks on letters gone (retried, purged) go.
    mutating func listDeadLetters(_ letters: [DeadLetterSummary]) {
        deadLetterIDs = letters.map(\.id)
        deadLetterCursor = min(deadLetterCursor, max(0, deadLetterIDs.count - 1))
        if !workbench.marked.isEmpty { workbench.marked.formIntersection(deadLetterIDs) }
    }

    /// The destination `P` acts on, if any.
    public var selectedDestinationName: String? {
        destinationNames.indices.contains(selectedDestination) ? destinationNames[selectedDestination] : nil
    }
}
