import BeaconDashboard
import CNCurses

extension TerminalScreen {
    /// The next key waiting, or `nil` when there is none (never blocks). Unknown function
    /// keys and stray control characters are skipped.
    public func nextKey() -> Key? {
        var code: wint_t = 0
        while true {
            let result = wget_wch(beacon_stdscr(), &code)
            if result == ERR {
                // Every byte is read (ncurses reads the input one byte at a time): the
                // next key may wake the run loop again.
                wakeup.inputDrained()
                return nil
            }
            if let key = result == KEY_CODE_YES ? Self.functionKey(Int32(code)) : Self.characterKey(UInt32(code)) {
                return key
            }
        }
    }

    /// `KEY_*` codes from keypad mode.
    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_RESIZE: return .resize
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        default: return nil
        }
    }

    /// Characters, including Enter, Esc, Backspace and Tab as their control codes.
    static func characterKey(_ code: UInt32) -> Key? {
        switch code {
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        case 9: return .tab
        case 0..<32: return nil
        default: return Unicode.Scalar(code).map { .character(Character($0)) }
        }
    }
}
