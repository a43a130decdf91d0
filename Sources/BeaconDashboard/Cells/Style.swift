/// How a cell should look, by role rather than by colour.
///
/// The painter maps roles to colours when the terminal has them, and to bold, dim and
/// reverse video when it does not (or when `NO_COLOR` is set), so every role stays
/// distinguishable without colour.
public enum Style: Sendable, Hashable, CaseIterable {
    /// Ordinary text.
    case normal
    /// Secondary text: labels, hints, empty-panel notes.
    case dim
    /// Emphasis: titles, key names, column heads.
    case bold
    /// Things going well: ONLINE, sent batches.
    case ok
    /// Things to watch: OFFLINE, retries, backoff.
    case warn
    /// Things that went wrong: dead letters, drops, storage problems.
    case error
    /// Data being shown off: the queue graph, numbers in focus.
    case accent
    /// Reverse video: the header band, the prompt cursor.
    case inverse
}
