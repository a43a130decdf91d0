import Foundation
import GRDB

/// A value read back from the store that is not what Beacon wrote. Thrown inside
/// database closures; ``StorageError/init(_:path:)`` turns it into a
/// ``StorageProblem/Kind/damaged`` error naming the table and column.
struct StoreDamage: Error {
    var table: String
    var column: String
    var found: String
    var expected: String
}

/// Reads a row of one table with checks: rows read back are outside input (a person
/// with `sqlite3` can put `'abc'` in an integer column, or a number that overflows the
/// next `+ 1`). GRDB's `row[i] as Int` traps on such values; these throw ``StoreDamage``.
///
/// Integers must lie within ``StoreSchema/integerRange`` (±2^62), so arithmetic on a
/// counter or a sequence in one transaction (adding at most a few million) cannot
/// overflow; timestamps within years 0...9999.
struct StoredRow {
    let row: Row
    let table: String

    init(_ row: Row, table: String) {
        self.row = row
        self.table = table
    }

    func int64(
        _ index: Int, _ column: String, in range: ClosedRange<Int64> = StoreSchema.integerRange,
        meaning: String = "an integer within ±2^62"
    ) throws -> Int64 {
        let value: DatabaseValue = row[index]
        guard let number = Self.integer(value), range.contains(number) else {
            throw damage(column, value, expected: meaning)
        }
        return number
    }

    func int(_ index: Int, _ column: String) throws -> Int {
        Int(try int64(index, column))  // within ±2^62: fits Int on every 64-bit platform
    }

    func optionalInt(_ index: Int, _ column: String) throws -> Int? {
        let value: DatabaseValue = row[index]
        if value.isNull { return nil }
        return try int(index, column)
    }

    func optionalInt64(
        _ index: Int, _ column: String, in range: ClosedRange<Int64> = StoreSchema.integerRange,
        meaning: String = "an integer within ±2^62"
    ) throws -> Int64? {
        let value: DatabaseValue = row[index]
        if value.isNull { return nil }
        return try int64(index, column, in: range, meaning: meaning)
    }

    func timestamp(_ index: Int, _ column: String) throws -> Int64 {
        try int64(index, column, in: StoreSchema.timestampRange, meaning: "a time in milliseconds since 1970 (years 1970...9999)")
    }

    func string(_ index: Int, _ column: String) throws -> String {
        let value: DatabaseValue = row[index]
        guard case .string(let text) = value.storage else { throw damage(column, value, expected: "text") }
        return text
    }

    func optionalString(_ index: Int, _ column: String) throws -> String? {
        let value: DatabaseValue = row[index]
        if value.isNull { return nil }
        return try string(index, column)
    }

    func bytes(_ index: Int, _ column: String) throws -> Data {
        let value: DatabaseValue = row[index]
        switch value.storage {
        case .blob(let data): return data
        case .string(let text): return Data(text.utf8)
        default: throw damage(column, value, expected: "a blob")
        }
    }

    private static func integer(_ value: DatabaseValue) -> Int64? {
        switch value.storage {
        case .int64(let number): return number
        case .double(let number): return Int64(exactly: number)  // nil for 1e300, NaN, 2.5
        default: return nil
        }
    }

    private func damage(_ column: String, _ value: DatabaseValue, expected: String) -> StoreDamage {
        StoreDamage(table: table, column: column, found: Self.describe(value), expected: expected)
    }

    /// A short, printable rendering of a stored value for the error line.
    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return "\(number)"
        case .double(let number): return "\(number)"
        case .string(let text):
            let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "'" + cut.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined() + "'"
        case .blob(let data): return "a \(data.count)-byte blob"
        }
    }
}
