/// One terminal cell: a character and the style it is drawn in.
///
/// A character two columns wide (CJK, most emoji) occupies its own cell and the next one,
/// which holds a continuation cell that painters skip.
public struct Cell: Sendable, Hashable {
    /// The character drawn in this cell (a space for an empty cell).
    public var character: Character
    /// How it is drawn.
    public var style: Style
    /// Whether this cell is the right half of the wide character to its left.
    public var isContinuation: Bool

    /// A cell holding `character` drawn in `style`.
    public init(_ character: Character, style: Style = .normal) {
        self.character = character
        self.style = style
        self.isContinuation = false
    }

    /// An empty cell: a space in the normal style.
    public static let blank = Cell(" ")

    /// The right half of a wide character drawn in `style`.
    public static func continuation(style: Style) -> Cell {
        var cell = Cell(" ", style: style)
        cell.isContinuation = true
        return cell
    }
}
