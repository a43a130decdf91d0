/// Why a drain started.
public enum FlushReason: String, Sendable, Hashable {
    case manual, count, interval
}
