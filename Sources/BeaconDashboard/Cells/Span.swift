/// A piece of text in one style, for lines that mix styles.
public struct Span: Sendable, Hashable {
    /// The text.
    public var text: String
    /// Its style.
    public var style: Style

    /// `text` drawn in `style`.
    public init(_ text: String, _ style: Style = .normal) {
        self.text = text
        self.style = style
    }
}
