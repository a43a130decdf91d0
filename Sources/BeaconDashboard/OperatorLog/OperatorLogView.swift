import Beacon

/// The operator-log view's memory (`l`): the commands last read from the store.
public struct OperatorLogView: Sendable, Hashable {
    /// Commands read per refresh: more than a screen holds.
    public static let pageLimit = 50

    /// The last read, newest first; `nil` before the first.
    public var actions: [OperatorAction]?
    /// Why the last read failed (the list shown is the one before), if it did.
    public var readError: String?
    /// Set when the console has no store to read (an engine in memory).
    public var isUnavailable = false

    public init() {}
}
