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
        batchSize = snapshot.batchSize
        hasRemoteConfig = snapshot.remoteConfig != nil
    }
}

/// A line of text being typed at the bottom of the dashboard.
public struct Prompt: Sendable, Hashable {
    /// What the typed text is for.
    public enum Kind: Sendable, Hashable {
        /// A flush policy (`p`): a preset number or text for `FlushPolicy(parsing:)`.
        case policy
        /// The number of events `b` sends (`B`).
        case burstSize
    }

    /// What the text is for.
    public var kind: Kind
    /// The text typed so far.
    public var buffer: String = ""
    /// Why the last Enter was refused, if it was.
    public var error: String?

    /// An empty prompt of `kind`.
    public init(kind: Kind, buffer: String = "", error: String? = nil) {
        self.kind = kind
        self.buffer = buffer
        self.error = error
    }
}

/// A one-line message shown at the bottom after a key press.
public struct StatusMessage: Sendable, Hashable {
    /// How much the message matters.
    public enum Severity: Sendable, Hashable {
        case info, warning, error
    }

    /// The text.
    public var text: String
    /// How much it matters (decides its style).
    public var severity: Severity

    /// A message with `text` and `severity`.
    public init(_ text: String, severity: Severity = .info) {
        self.text = text
        self.severity = severity
    }
}

/// The numbers the dashboard's keys step through.
public enum DashboardLimits {
    /// `b` sends this many events until changed.
    public static let defaultBurstSize = 500
    /// Burst sizes allowed (`B`, `[`, `]`).
    public static let burstSizes = 1...100_000
    /// Batch sizes allowed (`+` doubles, `-` halves, clamped to this range).
    public static let batchSizes = 1...10_000
    /// Generator rates `r` cycles through, in events per second (0: off).
    public static let generatorRates = [0, 10, 100, 1000]
    /// Longest prompt text accepted.
    public static let maxPromptLength = 120
    /// Flush policies offered by number in the `p` prompt.
    public static let policyPresets: [FlushPolicy] = [
        .manual, .count(100), .interval(.seconds(5)), .any([.count(100), .interval(.seconds(5))]),
    ]
}
