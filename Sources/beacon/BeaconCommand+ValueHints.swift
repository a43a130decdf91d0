import ArgumentParser

extension BeaconCommand {
    /// ArgumentParser refuses a value its type cannot read (`--count 1.5`, `--runs x`)
    /// with "The value '1.5' is invalid for '--count <count>'", which does not say what
    /// the flag wants. Its help does: this appends it, "…: How many events to track
    /// (0...10000000)". Any other message comes back as it was.
    ///
    /// - Parameters:
    ///   - arguments: the command line after `beacon`, to find the subcommand parsed.
    ///   - root: the command parsed as the root (`BeaconCommand`, or a `bench` command
    ///     routed past it).
    static func hinted(_ message: String, arguments: [String], root: any ParsableCommand.Type) -> String {
        // Only the bare message: for a list of values it already names them.
        guard message.hasPrefix("The value '"), let start = message.range(of: "' is invalid for '")?.upperBound,
            let end = message[start...].firstIndex(of: "'"), message.index(after: end) == message.endIndex
        else { return message }
        let option = String(message[start..<end])  // "--count <count>"
        guard option.hasPrefix("-"), let hint = help(of: option, in: command(for: arguments, from: root)) else { return message }
        return message + ": " + hint
    }

    /// The subcommand `arguments` name, from `root` down, or its default one (options and
    /// their values are skipped; a value that is also a subcommand's name is taken for
    /// it, which only costs the hint).
    static func command(for arguments: [String], from root: any ParsableCommand.Type) -> any ParsableCommand.Type {
        var current = root
        for argument in arguments where !argument.hasPrefix("-") {
            guard let next = current.configuration.subcommands.first(where: { $0.configuration.commandName == argument }) else {
                continue
            }
            current = next
        }
        // `beacon --rate 2.5` is the default subcommand's (the demo's).
        return current.configuration.defaultSubcommand ?? current
    }

    /// What `command`'s help says of `option` (`--count <count>`), on one line, without
    /// its default; `nil` when the help does not list it.
    static func help(of option: String, in command: any ParsableCommand.Type) -> String? {
        let lines = helpMessage(for: command, columns: 80).split(separator: "\n", omittingEmptySubsequences: false)
        guard let at = lines.firstIndex(where: { $0.drop(while: { $0 == " " }).hasPrefix(option + " ") || $0.drop(while: { $0 == " " }) == option })
        else { return nil }
        let first = lines[at].drop(while: { $0 == " " }).dropFirst(option.count)
        var words = first.split(separator: " ").map(String.init)
        // The description goes on in lines indented to its column; a discussion under it
        // is indented less, and the next option starts with "-".
        for line in lines[(at + 1)...] {
            let indent = line.prefix(while: { $0 == " " }).count
            let text = line.dropFirst(indent)
            guard indent >= 20, !text.hasPrefix("-") else { break }
            words += text.split(separator: " ").map(String.init)
        }
        var text = words.joined(separator: " ")
        if let defaultRange = text.range(of: " (default: ", options: .backwards) { text = String(text[..<defaultRange.lowerBound]) }
        if text.hasSuffix(".") { text.removeLast() }
        return text.isEmpty ? nil : text
    }
}
