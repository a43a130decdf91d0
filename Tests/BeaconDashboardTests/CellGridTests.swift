@testable import BeaconDashboard
import Testing

@Suite struct CellGridTests {
    @Test func writesAreClippedToTheGrid() {
        var grid = CellGrid(width: 10, height: 2)
        #expect(grid.write("hello world", x: 2, y: 0) == 8)
        #expect(grid.write("abc", x: -1, y: 1) == 3)
        grid.write("never", x: 0, y: 5)
        #expect(grid.text == "  hello wo\nbc")
    }

    @Test func maxWidthLimitsAWrite() {
        var grid = CellGrid(width: 10, height: 1)
        grid.write("abcdef", x: 1, y: 0, maxWidth: 3)
        #expect(grid.text == " abc")
    }

    @Test func wideCharactersTakeTwoCellsAndNeverHalfFit() {
        var grid = CellGrid(width: 5, height: 1)
        #expect(grid.write("日本語", x: 0, y: 0) == 4)
        #expect(grid[1, 0].isContinuation)
        #expect(grid.text == "日本")
        grid.write("x", x: 1, y: 0)
        #expect(grid.text == " x本")
        #expect(!grid[1, 0].isContinuation)
    }

    @Test func controlCharactersBecomeSpaces() {
        var grid = CellGrid(width: 8, height: 1)
        grid.write("a\nb\tc", x: 0, y: 0)
        #expect(grid.text == "a b c")
    }

    @Test func spansKeepTheirStyles() {
        var grid = CellGrid(width: 8, height: 1)
        grid.write([Span("ab", .bold), Span("cd", .error)], x: 0, y: 0)
        #expect(grid[1, 0].style == .bold)
        #expect(grid[2, 0].style == .error)
    }

    @Test func elision() {
        #expect("/a/b/c/file.sqlite".elidedLeft(toWidth: 10) == "…le.sqlite")
        #expect("a long error".elidedRight(toWidth: 6) == "a lon…")
        #expect("short".elidedRight(toWidth: 6) == "short")
        #expect("日本語".elidedRight(toWidth: 4) == "日…")
    }
}
