import Foundation

/// A directory of its own under the system's temporary directory, for a store and the
/// files beside it, removed with everything in it when the value goes away: a test's
/// stores do not pile up in `/tmp` run after run.
///
/// Keep it in a property of the test, or, as a local, to the end of the test: Swift may
/// release a local after its last use, and the directory goes with it.
///
/// ```swift
/// let store = try TemporaryStore("restart")
/// defer { withExtendedLifetime(store) {} }
/// let queue = try SQLiteEventQueue(path: store.path)
/// let other = store.file("feed.json")
/// ```
public final class TemporaryStore: Sendable {
    /// The directory (`…/beacon-PREFIX-UUID`), created by `init`.
    public let directory: String

    /// Creates the directory; `prefix` names it after its test.
    public init(_ prefix: String = "test") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The store's file: `store.sqlite` in the directory (not created: the queue creates it).
    public var path: String { file("store.sqlite") }

    /// A file in the directory, by name.
    public func file(_ name: String) -> String { directory + "/" + name }

    deinit {
        // Best effort: a test that made a file read-only, or a filesystem gone, leaves it.
        try? FileManager.default.removeItem(atPath: directory)
    }
}
