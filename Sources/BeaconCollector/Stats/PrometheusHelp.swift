/// Adds `# HELP` lines to Prometheus text whose registry wrote only `# TYPE` lines.
enum PrometheusHelp {
    /// `text` with `# HELP NAME TEXT` before each `# TYPE NAME …` line whose name `help`
    /// describes (a metric it does not describe gets `NAME (no description)`, so a scrape
    /// lint names it rather than the exposition failing).
    static func insert(_ help: [String: String], into text: String) -> String {
        guard !text.isEmpty else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + help.count * 80)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE ") {
                let name = line.dropFirst(7).prefix { $0 != " " }
                out += "# HELP \(name) \(escape(help[String(name)] ?? "\(name) (no description)"))\n"
            }
            out += line
            out += "\n"
        }
        if out.hasSuffix("\n\n") { out.removeLast() }  // split kept the text's own last newline
        return out
    }

    /// The exposition format's escapes for help text: backslash and newline.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
