import Synchronization

/// Durations of the SQLite store's steps, one sample per batch (or per checkpoint), for
/// ``CollectorStageProfile``.
final class StoreTiming: Sendable {
    private struct Samples {
        var insert: [Duration] = []
        var commit: [Duration] = []
        var checkpoint: [Duration] = []
        var checkpointsInCommit = 0
        var pagesCopiedInBackground = 0
    }

    private let samples = Mutex(Samples())

    func record(insert: Duration, commit: Duration) {
        samples.withLock { samples in
            samples.insert.append(insert)
            samples.commit.append(commit)
        }
    }

    func record(checkpoint: Duration, inCommit: Bool, copiedPages: Int) {
        samples.withLock { samples in
            samples.checkpoint.append(checkpoint)
            if inCommit { samples.checkpointsInCommit += 1 }
            samples.pagesCopiedInBackground += inCommit ? 0 : copiedPages
        }
    }

    var insert: [Duration] { samples.withLock { $0.insert } }
    var commit: [Duration] { samples.withLock { $0.commit } }
    var checkpoint: [Duration] { samples.withLock { $0.checkpoint } }
    /// Checkpoints run by a commit (before its request could be answered).
    var checkpointsInCommit: Int { samples.withLock { $0.checkpointsInCommit } }
    /// Log pages the background checkpoints copied into the database.
    var pagesCopiedInBackground: Int { samples.withLock { $0.pagesCopiedInBackground } }
}
