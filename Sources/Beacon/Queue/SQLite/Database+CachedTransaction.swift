import GRDB

extension Database {
    /// Runs `body` in an immediate transaction begun and ended by cached statements,
    /// inside `writeWithoutTransaction`. GRDB's `write` compiles its `BEGIN` and `COMMIT`
    /// again for every transaction (about 40 µs here, measured with perf), which the
    /// queue would pay on every settle.
    ///
    /// On error the transaction is rolled back and the error rethrown, as GRDB's own
    /// `inTransaction` does.
    func inCachedTransaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let value = try body()
            try cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            if isInsideTransaction {
                // The first error is the one to report. A failing ROLLBACK means SQLite
                // already ended the transaction (SQLITE_FULL, IOERR, BUSY, NOMEM).
                try? rollback()
            }
            throw error
        }
    }
}
