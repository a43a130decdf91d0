/// Why a scenario file could not be read: where (line, column, JSON path) and what went wrong.
///
/// Lines and columns are 1-based; a column counts Unicode scalars, so `é` is one column and a
/// tab is one column. Errors that are about the file rather than its text (missing, unreadable)
/// have line 0 and column 0. `field` is the JSON path of the offending value
/// (`steps[2].faults.main.failRate`, array indices 0-based), or `""` for syntax errors.
public struct ScenarioError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The 1-based line of the offending text, or 0 when the error concerns the whole file.
    public var line: Int
    /// The 1-based column (in Unicode scalars) of the offending text, or 0 with line 0.
    public var column: Int
    /// The JSON path of the offending field, such as `steps[2].rate`; `""` for syntax errors.
    public var field: String
    /// What is wrong and, where it helps, what to write instead.
    public var message: String

    /// Creates an error at a position.
    public init(line: Int, column: Int, field: String, message: String) {
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `LINE:COLUMN: FIELD: message`; the `FIELD: ` part is left out when `field` is empty,
    /// and `LINE:COLUMN: ` when `line` is 0.
    public var description: String {
        var parts: [String] = []
        if line > 0 { parts.append("\(line):\(column)") }
        if !field.isEmpty { parts.append(field) }
        parts.append(message)
        return parts.joined(separator: ": ")
    }

    /// `FILE:LINE:COLUMN: FIELD: message`, the form the runner prints (compiler style).
    public func described(file: String) -> String {
        line > 0 ? "\(file):\(description)" : "\(file): \(description)"
    }
}

extension ScenarioError {
    /// A syntax error at a position (no field).
    static func syntax(_ line: Int, _ column: Int, _ message: String) -> ScenarioError {
        ScenarioError(line: line, column: column, field: "", message: message)
    }
}
