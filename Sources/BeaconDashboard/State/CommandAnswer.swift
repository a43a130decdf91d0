/// What carrying out a dashboard action answered. The key's own message says what was
/// asked (`flush requested`); a refusal or a command that got no answer replaces it, so
/// the screen never says a command went through that the engine turned down.
public enum CommandAnswer: Sendable, Hashable {
    /// Done (or nothing to report): the key's message stands.
    case applied
    /// The engine refused it, for this reason (as `ctl` prints it, exiting 1).
    case refused(String)
    /// It got no answer: the engine could not be reached, or did not answer in time.
    case noAnswer(String)

    /// The message that replaces the key's, when the answer is not ``applied``.
    public var message: StatusMessage? {
        switch self {
        case .applied: nil
        case .refused(let reason): StatusMessage("refused: \(reason)", severity: .error)
        case .noAnswer(let reason): StatusMessage("no answer: \(reason)", severity: .error)
        }
    }
}
