/// The database's counter table could not be read as totals (missing, or holding values
/// no collector wrote).
struct StoreTotalsError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with it.
    var reason: String

    var description: String { reason }
}
