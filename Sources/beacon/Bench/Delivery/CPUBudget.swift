import Foundation

/// What the CPU that the engine and its collector burned allows: together they cannot
/// finish before their sum, spread evenly over every core, is spent. The floor over the
/// raw replay's time bounds the ratio that any scheduling of the same work could reach on
/// this machine.
struct CPUBudget {
    var engine: Double
    var collector: Double
    var rawCollector: Double
    var rawSeconds: Double
    var cores: Int

    /// Medians over the runs.
    init(engine: [DeliveryBenchmark.EngineRun], raw: [DeliveryBenchmark.RawRun], cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.engine = BenchmarkStatistics.median(engine.map(\.engineCPUSeconds))
        collector = BenchmarkStatistics.median(engine.map(\.collectorCPUSeconds))
        rawCollector = BenchmarkStatistics.median(raw.map(\.collectorCPUSeconds))
        rawSeconds = BenchmarkStatistics.median(raw.map(\.elapsed.inSeconds))
        self.cores = cores
    }

    /// The least time the engine's run could take with this much CPU, every core busy
    /// throughout.
    var floorSeconds: Double { (engine + collector) / Double(max(1, cores)) }

    /// ``floorSeconds`` over the raw replay's time.
    var floorOverRaw: Double { rawSeconds > 0 ? floorSeconds / rawSeconds : 0 }
}
