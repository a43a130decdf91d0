import Beacon

/// A column of the batch history table.
struct HistoryColumn {
    var title: String
    var width: Int
    var alignRight: Bool
    var cell: (BatchRecord) -> Span
}

extension Renderer {
    /// The batch table, newest first, as many rows as fit; columns drop out (least useful
    /// first) on narrow terminals and the error column takes the spare width.
    mutating func drawHistory(y: Int, rows: Int) {
        let batches = snapshot.recentBatches
        drawSectionTitle("Batches", detail: batches.isEmpty ? "" : "· newest first", y: y)
        let columns = historyColumns()
        let fixed = columns.reduce(1) { $0 + $1.width + 1 }
        let errorWidth = width - fixed - 1
        var x = 1
        for column in columns {
            grid.write(column.alignRight ? column.title.padLeft(column.width) : column.title, x: x, y: y + 1,
                       style: .bold, maxWidth: column.width)
            x += column.width + 1
        }
        if errorWidth >= 5 { grid.write("error", x: x, y: y + 1, style: .bold) }
        guard !batches.isEmpty else {
            grid.write(" no batches sent yet", x: 0, y: y + 2, style: .dim)
            return
        }
        for (row, record) in batches.prefix(rows).enumerated() {
            var x = 1
            for column in columns {
                let span = column.cell(record)
                let text = column.alignRight ? span.text.padLeft(column.width) : span.text
                grid.write(text, x: x, y: y + 2 + row, style: span.style, maxWidth: column.width)
                x += column.width + 1
            }
            if errorWidth >= 5, let error = record.error {
                grid.write(error.elidedRight(toWidth: errorWidth), x: x, y: y + 2 + row,
                           style: record.outcome == .sent ? .dim : .error)
            }
        }
    }

    /// The columns that fit, in display order.
    private func historyColumns() -> [HistoryColumn] {
        let maxID = snapshot.recentBatches.map(\.id).max() ?? 0
        var columns: [(priority: Int, column: HistoryColumn)] = [
            (0, HistoryColumn(title: "id", width: max(6, String(maxID).count), alignRight: true) { Span(String($0.id)) }),
            (0, HistoryColumn(title: "events", width: 6, alignRight: true) { Span(Format.count($0.events)) }),
            (3, HistoryColumn(title: "bytes", width: 8, alignRight: true) { Span(Format.bytes($0.bytes)) }),
            (2, HistoryColumn(title: "time", width: 7, alignRight: true) { Span(Format.duration($0.duration)) }),
            (4, HistoryColumn(title: "try", width: 3, alignRight: true) { Span(String($0.attempt), $0.attempt > 1 ? .warn : .normal) }),
            (1, HistoryColumn(title: "http", width: 4, alignRight: true) { record in
                record.status.map { Span(String($0)) } ?? Span("—", .dim)
            }),
            (0, HistoryColumn(title: "outcome", width: 13, alignRight: false) { Span($0.outcome.rawValue, outcomeStyle($0.outcome)) }),
        ]
        if snapshot.destinations.count > 1 {
            let nameWidth = min(12, max(4, snapshot.destinations.map { DisplayWidth.of($0.name) }.max() ?? 4))
            columns.insert((5, HistoryColumn(title: "dest", width: nameWidth, alignRight: false) {
                Span($0.destination.elidedRight(toWidth: nameWidth))
            }), at: 1)
        }
        let minimumErrorWidth = 12
        while columns.reduce(1, { $0 + $1.column.width + 1 }) + minimumErrorWidth > width,
              let drop = columns.indices.filter({ columns[$0].priority > 0 }).max(by: { columns[$0].priority < columns[$1].priority }) {
            columns.remove(at: drop)
        }
        return columns.map(\.column)
    }
}

/// The style an outcome is shown in, wherever it appears.
func outcomeStyle(_ outcome: BatchOutcome) -> Style {
    switch outcome {
    case .sent: return .ok
    case .retry: return .warn
    case .split: return .accent
    case .deadLettered, .paused: return .error
    case .filtered: return .dim
    }
}
