import BeaconWire
import GRDB

/// The `operator_actions` table (schema `v8-operator-actions`): written by the queue's
/// writer, read by anyone.
enum OperatorActionRows {
    /// Stores `action` and forgets those past the newest ``OperatorAction/kept``.
    static func insert(_ action: OperatorAction, _ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO operator_actions (at, command, argument, applied, reason, peer_uid, peer_pid) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                action.at.millisecondsSince1970, action.command, action.argument, action.applied, action.reason,
                action.peerUID.map { Int64($0) }, action.peerPID.map { Int64($0) },
            ])
        try db.cachedStatement(sql: "DELETE FROM operator_actions WHERE id <= ?")
            .execute(arguments: [db.lastInsertedRowID - Int64(OperatorAction.kept)])
    }

    /// The newest `limit`, newest first; none in a store from before the table.
    static func newest(_ db: Database, limit: Int) throws -> [OperatorAction] {
        guard try db.tableExists("operator_actions") else { return [] }
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT id, at, command, argument, applied, reason, peer_uid, peer_pid FROM operator_actions ORDER BY id DESC LIMIT ?
            """), arguments: [max(0, limit)])
        var actions: [OperatorAction] = []
        while let next = try rows.next() {
            let row = StoredRow(next, table: "operator_actions")
            actions.append(OperatorAction(
                id: try row.int64(0, "id", in: 1...Int64.max, meaning: "a row id"),
                at: Timestamp(millisecondsSince1970: try row.timestamp(1, "at")), command: try row.string(2, "command"),
                argument: try row.optionalString(3, "argument"), applied: try row.int(4, "applied") != 0,
                reason: try row.optionalString(5, "reason"),
                peerUID: try row.optionalInt64(6, "peer_uid", in: 0...Int64(UInt32.max), meaning: "a uid").map { UInt32($0) },
                peerPID: try row.optionalInt64(7, "peer_pid", in: 0...Int64(Int32.max), meaning: "a pid").map { Int32($0) }))
        }
        return actions
    }
}
