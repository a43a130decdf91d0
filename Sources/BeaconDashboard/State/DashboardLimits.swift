import Beacon

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
    /// Lines the dead-letter detail pane scrolls at most.
    public static let maxDetailScroll = 100_000
    /// Longest prompt text accepted.
    public static let maxPromptLength = 120
    /// Flush policies offered by number in the `p` prompt.
    public static let policyPresets: [FlushPolicy] = [
        .manual, .count(100), .interval(.seconds(5)), .any([.count(100), .interval(.seconds(5))]),
    ]
}
