@_spi(Benchmarks) import BeaconCollector
import BeaconWire
import Foundation

/// Median milliseconds per batch of each of the collector's steps, from
/// ``CollectorStageProfile`` replaying an engine's bodies in this process.
struct CollectorStages {
    var inflate = 0.0
    var utf8 = 0.0
    var parse = 0.0
    var validate = 0.0
    var insert = 0.0
    var commit = 0.0
    /// Mean commit: the checkpoints a commit runs are rare, so the median hides them.
    var commitMean = 0.0
    /// The whole of a batch's handling, first step to commit (median and mean).
    var total = 0.0
    var totalMean = 0.0
    /// Checkpoints run and their median duration.
    var checkpoints = 0.0
    var checkpointsInCommit = 0.0
    var checkpointMedian = 0.0
    var synchronous = 0
    var journalMode = ""

    init() {}

    /// Profiles `bodies` into a new store at `path`, checkpointing as `policy` says.
    init(bodies: [[UInt8]], gzipped: Bool, path: String, policy: CollectorCheckpointPolicy) async throws {
        defer { EnqueueBenchmark.remove(path) }
        let result = try await CollectorStageProfile.run(bodies: bodies, gzipped: gzipped, databasePath: path, checkpoints: policy)
        func median(_ values: [Duration]) -> Double { BenchmarkStatistics.median(values.map(\.inSeconds)) * 1000 }
        func mean(_ values: [Duration]) -> Double { values.isEmpty ? 0 : values.reduce(0) { $0 + $1.inSeconds } / Double(values.count) * 1000 }
        inflate = median(result.inflate)
        utf8 = median(result.utf8)
        parse = median(result.parse)
        validate = median(result.validate)
        insert = median(result.insert)
        commit = median(result.commit)
        commitMean = mean(result.commit)
        total = median(result.total)
        totalMean = mean(result.total)
        checkpoints = Double(result.checkpoints.count)
        checkpointsInCommit = Double(result.checkpointsInCommit)
        checkpointMedian = median(result.checkpoints)
        synchronous = result.synchronous
        journalMode = result.journalMode
    }

    /// The median of each figure over several profiles.
    init(medianOf runs: [CollectorStages]) {
        func median(_ key: KeyPath<CollectorStages, Double>) -> Double { BenchmarkStatistics.median(runs.map { $0[keyPath: key] }) }
        inflate = median(\.inflate)
        utf8 = median(\.utf8)
        parse = median(\.parse)
        validate = median(\.validate)
        insert = median(\.insert)
        commit = median(\.commit)
        commitMean = median(\.commitMean)
        total = median(\.total)
        totalMean = median(\.totalMean)
        checkpoints = median(\.checkpoints)
        checkpointsInCommit = median(\.checkpointsInCommit)
        checkpointMedian = median(\.checkpointMedian)
        synchronous = runs.first?.synchronous ?? 0
        journalMode = runs.first?.journalMode ?? ""
    }

    var json: JSONValue {
        [
            "inflate": .double(round3(inflate)), "utf8": .double(round3(utf8)), "parse": .double(round3(parse)),
            "validate": .double(round3(validate)), "insert": .double(round3(insert)), "commit": .double(round3(commit)),
            "commitMean": .double(round3(commitMean)), "total": .double(round3(total)), "totalMean": .double(round3(totalMean)),
            "checkpoints": .double(checkpoints), "checkpointsInCommit": .double(checkpointsInCommit), "checkpointMedian": .double(round3(checkpointMedian)),
            "synchronous": .int(synchronous), "journalMode": .string(journalMode),
        ]
    }

    var text: String {
        "inflate \(round3(inflate)), utf8 \(round3(utf8)), parse \(round3(parse)), validate \(round3(validate)), "
            + "insert \(round3(insert)), commit \(round3(commit)) (mean \(round3(commitMean))), "
            + "total \(round3(total)) (mean \(round3(totalMean))) ms; \(Int(checkpoints)) checkpoints (\(Int(checkpointsInCommit)) in a commit) of \(round3(checkpointMedian)) ms"  // checked: counts
    }
}
