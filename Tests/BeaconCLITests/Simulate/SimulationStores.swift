import Foundation
import GRDB

/// What a simulation's directory holds, read straight from its files, with none of the
/// runner's code: the ids the feeder wrote, each collector's stored events, and the
/// engine store's dead letters and queue.
struct SimulationStores {
    var tracked: Set<String>
    var inDoubt: Set<String>
    var poison: Set<String>
    /// Per collector: `messageId` → the stored JSON.
    var stored: [String: [String: String]]
    /// Per collector: rows beyond the first for one `messageId`.
    var repeated: [String: Int]
    /// Per destination: `messageId` → the reason.
    var deadLetters: [String: [String: String]]
    var deadLetterRows: Int
    /// Events still queued in the engine's store.
    var queued: Int

    init(directory: String, collectors: [String]) throws {
        func ids(_ name: String) throws -> Set<String> {
            let text = try String(contentsOfFile: "\(directory)/\(name).ids", encoding: .utf8)
            return Set(text.split(separator: "\n").map(String.init))
        }
        tracked = try ids("tracked")
        inDoubt = try ids("in-doubt")
        poison = try ids("poison")
        stored = [:]
        repeated = [:]
        for name in collectors {
            let queue = try DatabaseQueue(path: "\(directory)/collector-\(name).sqlite")
            let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT message_id, json FROM collector_events") }
            var events: [String: String] = [:]
            for row in rows {
                let id: String = row["message_id"]
                if events[id] != nil { repeated[name, default: 0] += 1 }
                events[id] = row["json"]
            }
            stored[name] = events
        }
        let engine = try DatabaseQueue(path: "\(directory)/engine.sqlite")
        let (letters, queued) = try engine.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT destination, message_id, reason FROM dead_letters"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM events") ?? -1
            )
        }
        deadLetters = [:]
        for row in letters {
            deadLetters[row["destination"] as String, default: [:]][row["message_id"] as String] = row["reason"]
        }
        deadLetterRows = letters.count
        self.queued = queued
    }
}

