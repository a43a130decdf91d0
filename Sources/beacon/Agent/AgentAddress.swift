/// The pieces of `beacon agent`'s address flags, checked.
enum AgentAddress {
    /// The default `--listen`: loopback only, port 8090 (the collector's default is 8088).
    static let defaultListen = "127.0.0.1:8090"

    /// `HOST:PORT` or `[IPv6]:PORT` split and checked; the port may be 0 (any free one).
    static func listen(_ text: String) throws(CLIError) -> (host: String, port: Int) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw .badInput("--listen \(shown(text)) is not [IPv6]:PORT; use e.g. [::1]:8090 or 127.0.0.1:8090")
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon else {
                throw .badInput("--listen \(shown(text)) is not HOST:PORT; use e.g. 127.0.0.1:8090")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if let problem = HostCheck.problem(String(host)) {
            throw .badInput("--listen: the host \(shown(host)) \(problem)")
        }
        guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), portText.count <= 5, let port = Int(portText),
              (0...65_535).contains(port)
        else {
            throw .badInput("--listen: the port \(shown(portText)) is not 0...65535 (0 picks a free port)")
        }
        return (String(host), port)
    }

    /// `text` quoted for an error line, cut after 64 characters (a 100,000-character
    /// host made a 100 KB line).
    static func shown(_ text: some StringProtocol) -> String {
        guard text.count > 64 else { return String(text).debugDescription }
        return String(text.prefix(64)).debugDescription + "… (\(text.utf8.count) bytes)"
    }

    /// `--endpoint [NAME=]URL`: the destination's name (`default` for the first unnamed
    /// one, `destination-N` for the N-th after it) and its URL.
    static func endpoints(_ values: [String]) throws(CLIError) -> [(name: String, url: String)] {
        guard !values.isEmpty else { throw .badInput("give at least one --endpoint URL (e.g. --endpoint http://127.0.0.1:8088)") }
        var result: [(name: String, url: String)] = []
        for (index, value) in values.enumerated() {
            var name = index == 0 ? "default" : "destination-\(index + 1)"
            var url = value
            // A name is letters, digits, '.', '_' or '-' before '=': a URL's scheme has a ':' first.
            if let equals = value.firstIndex(of: "="), !value[..<equals].contains(":") {
                let given = value[..<equals]
                guard (1...64).contains(given.count),
                      given.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
                else {
                    throw .badInput(
                        "--endpoint \(value.debugDescription): a destination name is 1...64 letters, digits, '.', '_' or '-' (NAME=URL)")
                }
                name = String(given)
                url = String(value[value.index(after: equals)...])
            }
            guard !result.contains(where: { $0.name == name }) else {
                throw .badInput("--endpoint: the destination name '\(name)' is given twice; name each one (NAME=URL)")
            }
            result.append((name, url))
        }
        return result
    }
}
