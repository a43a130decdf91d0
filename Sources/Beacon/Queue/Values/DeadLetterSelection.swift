/// Which dead letters an operation acts on.
public enum DeadLetterSelection: Sendable, Hashable {
    /// Every dead letter in the store when the operation runs.
    case all
    /// These ids (``DeadLetter/id``); ids not found are reported, not an error.
    case ids([Int64])
}
