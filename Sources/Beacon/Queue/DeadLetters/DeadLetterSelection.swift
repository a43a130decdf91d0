/// Which dead letters an operation acts on.
public enum DeadLetterSelection: Sendable, Hashable {
    /// Every dead letter in the store when the operation runs.
    case all
    /// These ids (``DeadLetter/id``); ids not found are reported, not an error.
    case ids([Int64])
    /// Every dead letter the query finds when the operation runs (the dashboard's bulk
    /// retry or purge of what its filter shows).
    case matching(DeadLetterQuery)
}
