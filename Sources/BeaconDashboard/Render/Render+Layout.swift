import Beacon

/// How many rows each panel gets at a given height.
///
/// Top to bottom: header (a fourth line for remote configuration when a syncer reports),
/// storage problem, queue graph, batch history, destinations,
/// outcomes, footer (keys and message). When rows are short, panels go in this order:
/// history, destinations, queue, outcomes; the header, a storage problem and the footer
/// always stay. Spare rows grow the graph to its target height (4 rows at 24 lines, more
/// on taller terminals), then go to the history table.
struct DashboardLayout {
    var headerLines = 1
    var hasStorageLine = false
    var graphRows = 0
    var historyRows = 0
    var destinationRows = 0
    var outcomeLines = 0

    /// Rows between the queue graph and the outcomes: the history and destinations, or
    /// the dead-letter view in their place (its title included).
    var middleRows: Int {
        (historyRows > 0 ? 2 + historyRows : 0) + (destinationRows > 0 ? 1 + destinationRows : 0)
    }

    init(snapshot: EngineSnapshot, height: Int) {
        headerLines = height >= 20 ? 3 : 1
        if headerLines == 3, snapshot.remoteConfig != nil { headerLines += 1 }  // the remote-config line
        var left = height - headerLines - 2
        if snapshot.storageProblem != nil || snapshot.isQueueFull || snapshot.engineLostAt != nil || snapshot.isDiskLow, left >= 1 {
            hasStorageLine = true
            left -= 1
        }
        if left >= 3 {
            outcomeLines = 2
            left -= 3
        }
        if left >= 3 {
            graphRows = 2
            left -= 3
        }
        if left >= 3 {
            historyRows = 1
            left -= 3
        }
        if snapshot.destinations.count > 1, left >= 2 {
            // A row each, and one more for the selected destination's whole error.
            destinationRows = min(snapshot.destinations.count + 1, left - 1)
            left -= 1 + destinationRows
        }
        if snapshot.lastError != nil, outcomeLines > 0, left >= 1 {
            outcomeLines += 1
            left -= 1
        }
        if graphRows > 0 {
            let target = min(16, max(2, 4 + (height - 24) / 4))
            let grow = historyRows > 0 ? min(left, max(0, target - graphRows)) : left
            graphRows += grow
            left -= grow
        }
        if historyRows > 0 {
            historyRows += left
        }
    }
}
