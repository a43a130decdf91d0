import BeaconDashboard
import CNCurses

extension TerminalScreen {
    /// Draws `grid`, writing only runs of cells that differ from the previous frame, then
    /// updates the terminal once (`wnoutrefresh` + `doupdate`).
    public func paint(_ grid: CellGrid) {
        let window = beacon_stdscr()
        if let last = previous, last.width != grid.width || last.height != grid.height {
            invalidate()
        }
        let last = previous
        for y in 0..<grid.height {
            var x = 0
            while x < grid.width {
                let cell = grid[x, y]
                if cell.isContinuation || last?[x, y] == cell {
                    x += 1
                    continue
                }
                let start = x
                var text = ""
                while x < grid.width {
                    let next = grid[x, y]
                    if next.isContinuation {
                        x += 1
                        continue
                    }
                    if next.style != cell.style || last?[x, y] == next { break }
                    text.append(next.character)
                    x += 1
                }
                _ = beacon_wattrset(window, palette.attributes(for: cell.style))
                // ERR here only means the text reached the bottom-right corner, which
                // ncurses still draws; nothing to recover.
                _ = mvwaddstr(window, Int32(y), Int32(start), text)
            }
        }
        _ = beacon_wattrset(window, beacon_a_normal())
        wnoutrefresh(window)
        doupdate()
        previous = grid
    }
}
