/// How a simulation words its numbers and tables: fixed routines, so the same run prints
/// the same text.
public enum SimulationFormat {
    /// `1234567` → `1,234,567`.
    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// One decimal, rounded half away from zero; `?` for a value that is not finite.
    public static func decimal(_ value: Double) -> String {
        guard value.isFinite, value.magnitude < 1e15 else { return "?" }
        let tenths = (value * 10).rounded()
        let whole = Int64(tenths) / 10  // checked: |value| < 1e15
        let fraction = Int64(tenths).magnitude % 10
        let sign = tenths < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(fraction)"
    }

    /// `2.5 s`, `0.001 s`: small values keep their digits.
    public static func seconds(_ value: Double) -> String {
        guard value.isFinite else { return "? s" }
        return value >= 0.1 || value == 0 ? decimal(value) + " s" : "\(value) s"
    }

    /// A share as a percentage: `0.3` → `30.0%`.
    public static func percent(_ share: Double) -> String { decimal(share * 100) + "%" }

    /// A rate or an amount: whole numbers without a fraction (`200`), others with one decimal (`2.5`).
    public static func amount(_ value: Double) -> String {
        guard value.isFinite, value.magnitude < 1e15 else { return "?" }
        return ChartFormat.decimal(value)
    }

    /// Bytes as `512 B`, `1.5 KB`, `12.3 MB` (powers of 1,000).
    public static func bytes(_ value: Int) -> String {
        let magnitude = Double(value)
        if magnitude < 1_000 { return "\(value) B" }
        if magnitude < 1_000_000 { return decimal(magnitude / 1_000) + " KB" }
        if magnitude < 1_000_000_000 { return decimal(magnitude / 1_000_000) + " MB" }
        return decimal(magnitude / 1_000_000_000) + " GB"
    }

    /// `text` cut to `width` characters, with `…` when cut.
    public static func clip(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }

    /// Rows as columns: the first column left-aligned, the others right-aligned.
    public static func table(_ rows: [[String]]) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: columns)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        return rows.map { row in
            row.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
    }

    /// `  ok    NAME  detail` or `  FAIL  NAME  detail`.
    public static func check(_ check: SimulationCheck) -> String {
        "  \(check.holds ? "ok  " : "FAIL")  \(check.name)  \(check.detail)"
    }
}
