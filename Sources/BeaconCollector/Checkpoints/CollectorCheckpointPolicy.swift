/// When the collector's SQLite store copies its write-ahead log back into the database
/// file (a checkpoint: an fsync of the log, the copy, an fsync of the database).
///
/// Neither choice changes what a 200 promises: the batch's transaction is committed to
/// the log before the answer (`synchronous=NORMAL` in WAL mode: it survives the
/// collector's crash or `kill -9`; the log is synced to disk at each checkpoint).
@_spi(Benchmarks) public enum CollectorCheckpointPolicy: Sendable, Hashable {
    /// SQLite's default: the commit that takes the log past `pages` pages runs the
    /// checkpoint itself, before its request is answered.
    case onCommit(pages: Int)
    /// A connection of its own checkpoints once the log passes `pages` pages, while
    /// requests go on being stored and answered; a commit checkpoints itself only when
    /// the log passes `16 × pages` (the background one cannot keep up).
    case background(pages: Int)

    /// The collector's policy: in the background, past 1,000 pages (4 MB with 4 KB pages).
    public static let `default` = CollectorCheckpointPolicy.background(pages: 1_000)
}
