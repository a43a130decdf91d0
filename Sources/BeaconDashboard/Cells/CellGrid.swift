/// A width × height array of cells: what one frame of the dashboard looks like.
///
/// Writes are clipped to the grid, so renderers never need bounds checks. ``text`` gives
/// the rows as plain lines, which golden tests compare.
///
/// ```swift
/// var grid = CellGrid(width: 10, height: 1)
/// grid.write("hello world", x: 2, y: 0)   // writes "hello wo"
/// grid.text                               // "  hello wo"
/// ```
public struct CellGrid: Sendable, Hashable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// The cells, row by row.
    public private(set) var cells: [Cell]

    /// A grid of blank cells; negative sizes count as zero.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The cell at column `x`, row `y`; outside the grid, reads give a blank cell and
    /// writes are ignored.
    public subscript(x: Int, y: Int) -> Cell {
        get { contains(x: x, y: y) ? cells[y * width + x] : .blank }
        set { if contains(x: x, y: y) { cells[y * width + x] = newValue } }
    }

    /// Whether (`x`, `y`) lies inside the grid.
    public func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    /// Writes `text` from column `x` of row `y`, clipped to the grid and to `maxWidth`
    /// columns. Control characters become spaces; a wide character that would not fit
    /// whole is left out. Returns the columns written.
    @discardableResult
    public mutating func write(_ text: String, x: Int, y: Int, style: Style = .normal, maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < height else { return 0 }
        let limit = min(width, maxWidth.map { x + max(0, $0) } ?? width)
        var column = x
        for character in text {
            var drawn = character
            var columns = DisplayWidth.of(character)
            if columns == 0 {
                drawn = " "
                columns = 1
            }
            if column + columns > limit { break }
            if column >= 0 {
                clearWideCharacter(at: column, y: y)
                self[column, y] = Cell(drawn, style: style)
                if columns == 2 {
                    clearWideCharacter(at: column + 1, y: y)
                    self[column + 1, y] = .continuation(style: style)
                }
            }
            column += columns
        }
        return max(0, column - x)
    }

    /// Writes styled pieces one after another from column `x`; returns the columns written.
    @discardableResult
    public mutating func write(_ spans: [Span], x: Int, y: Int, maxWidth: Int? = nil) -> Int {
        var column = x
        let end = maxWidth.map { x + max(0, $0) } ?? width
        for span in spans {
            column += write(span.text, x: column, y: y, style: span.style, maxWidth: end - column)
        }
        return column - x
    }

    /// Fills `width` cells of row `y` from column `x` with `character` in `style`.
    public mutating func fill(x: Int, y: Int, width count: Int, character: Character = " ", style: Style = .normal) {
        guard count > 0 else { return }
        for column in x..<(x + count) {
            clearWideCharacter(at: column, y: y)
            self[column, y] = Cell(character, style: style)
        }
    }

    /// One row as plain text, continuation cells left out and trailing spaces trimmed.
    public func row(_ y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var line = ""
        for x in 0..<width where !self[x, y].isContinuation {
            line.append(self[x, y].character)
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// All rows as plain text lines joined by newlines (each trimmed of trailing spaces).
    public var text: String {
        (0..<height).map(row).joined(separator: "\n")
    }

    /// Overwriting half of a wide character leaves the other half blank, never a dangling
    /// continuation.
    private mutating func clearWideCharacter(at x: Int, y: Int) {
        guard contains(x: x, y: y) else { return }
        if self[x, y].isContinuation, x > 0 {
            self[x - 1, y] = Cell(" ", style: self[x - 1, y].style)
        }
        if x + 1 < width, self[x + 1, y].isContinuation {
            self[x + 1, y] = Cell(" ", style: self[x + 1, y].style)
        }
    }
}

extension [Span] {
    /// Columns the spans take together.
    var displayWidth: Int { reduce(0) { $0 + DisplayWidth.of($1.text) } }
}
