extension FaultPlan {
    /// The named presets, in the order a dashboard cycles through them.
    public static let presets: [(name: String, plan: FaultPlan)] = [
        ("none", .none), ("flaky", .flaky), ("slow", .slow), ("down", .down),
    ]

    /// No faults: every request is served normally.
    public static let none = FaultPlan()

    /// A bad day: 20% of batches get a 500, 10% a 429 (retry after 1 s), 2% a reset.
    public static let flaky = FaultPlan(failRate: 0.2, throttleRate: 0.1, retryAfterSeconds: 1, resetRate: 0.02)

    /// A slow server: 300 ms on every batch, and 5% of batches hang for 30 s.
    public static let slow = FaultPlan(latencyMilliseconds: 300, hangRate: 0.05, hangSeconds: 30)

    /// The collector is down: 503 for everything except `/health` and `/admin/...`.
    public static let down = FaultPlan(down: true)

    /// The preset with this name (`none`, `flaky`, `slow`, `down`), or `nil`.
    public static func preset(named name: String) -> FaultPlan? {
        presets.first { $0.name == name.lowercased() }?.plan
    }

    /// The name of the preset equal to this plan, or `"custom"`.
    public var presetName: String {
        FaultPlan.presets.first { $0.plan == self }?.name ?? "custom"
    }
}
