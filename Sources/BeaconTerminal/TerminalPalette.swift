import BeaconDashboard
import CNCurses

/// How each ``Style`` role is drawn: colour pairs on the terminal's default background
/// when colours are on, bold/dim/reverse/underline when they are off.
struct TerminalPalette {
    /// Whether colour pairs are in use.
    let usesColor: Bool

    /// Sets up colours unless `NO_COLOR` is set (to anything non-empty) or the terminal has
    /// none. Call after `newterm`.
    static func start(environmentNoColor: String?) -> TerminalPalette {
        let wantsColor = environmentNoColor.map(\.isEmpty) ?? true
        guard wantsColor, has_colors() else { return TerminalPalette(usesColor: false) }
        start_color()
        let background: Int16 = use_default_colors() == OK ? -1 : Int16(COLOR_BLACK)
        init_pair(Pair.ok, Int16(COLOR_GREEN), background)
        init_pair(Pair.warn, Int16(COLOR_YELLOW), background)
        init_pair(Pair.error, Int16(COLOR_RED), background)
        init_pair(Pair.accent, Int16(COLOR_CYAN), background)
        return TerminalPalette(usesColor: true)
    }

    /// The attribute word for `style`.
    func attributes(for style: Style) -> Int32 {
        let bold = beacon_a_bold(), dim = beacon_a_dim(), reverse = beacon_a_reverse()
        switch style {
        case .normal: return beacon_a_normal()
        case .dim: return dim
        case .bold: return bold
        case .inverse: return reverse
        case .ok: return usesColor ? beacon_color_pair(Int32(Pair.ok)) : beacon_a_normal()
        case .warn: return usesColor ? beacon_color_pair(Int32(Pair.warn)) | bold : bold
        case .error: return usesColor ? beacon_color_pair(Int32(Pair.error)) | bold : bold | beacon_a_underline()
        case .accent: return usesColor ? beacon_color_pair(Int32(Pair.accent)) : bold
        }
    }

    private enum Pair {
        static let ok: Int16 = 1
        static let warn: Int16 = 2
        static let error: Int16 = 3
        static let accent: Int16 = 4
    }
}
