/// A key press, independent of the terminal library, so the reducer can be tested as data.
public enum Key: Sendable, Hashable {
    /// A printable character.
    case character(Character)
    /// Enter or Return.
    case enter
    /// Escape.
    case escape
    /// Backspace or Delete-left.
    case backspace
    /// Tab.
    case tab
    /// Arrow keys.
    case up, down, left, right
    /// The terminal changed size.
    case resize
}
