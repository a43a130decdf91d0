import Synchronization

/// Durations of the SQLite store's steps, one sample per batch (or per checkpoint), for
/// ``CollectorStageProfile``.
final class StoreTiming: Sendable {
    private struct Samples {
        var insert: [Duration] = []
        var commit: [Duration] = []
        var checkpoint: [Duration] = []
    }

    private let samples = Mutex(Samples())

    func record(insert: Duration, commit: Duration) {
        samples.withLock { samples in
            samples.insert.append(insert)
            samples.commit.append(commit)
        }
    }

    func record(checkpoint: Duration) {
        samples.withLock { $0.checkpoint.append(checkpoint) }
    }

    var insert: [Duration] { samples.withLock { $0.insert } }
    var commit: [Duration] { samples.withLock { $0.commit } }
    var checkpoint: [Duration] { samples.withLock { $0.checkpoint } }
}
