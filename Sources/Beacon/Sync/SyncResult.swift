import BeaconWire

/// What one applied response changed.
public struct SyncResult: Sendable, Hashable, CustomStringConvertible {
    /// Records written (inserted or replaced) per collection, nested records included.
    public var upserted: [String: Int]
    /// Records removed per collection (ids that were not stored do not count).
    public var deleted: [String: Int]
    /// The token now stored.
    public var versionToken: String

    /// Creates a result.
    public init(upserted: [String: Int] = [:], deleted: [String: Int] = [:], versionToken: String) {
        self.upserted = upserted
        self.deleted = deleted
        self.versionToken = versionToken
    }

    /// One line: `upserted events=1 locations=2; deleted none; version_token 1234567890`.
    public var description: String {
        func list(_ counts: [String: Int]) -> String {
            let nonZero = counts.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            return nonZero.isEmpty ? "none" : nonZero.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        return "upserted \(list(upserted)); deleted \(list(deleted)); version_token \(versionToken)"
    }
}
