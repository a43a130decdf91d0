import BeaconWire

extension ControlCommand {
    /// The commands a request may name.
    static let known = [
        "status", "flush", "offline", "online", "policy", "batch-size", "pause", "resume", "retry-now", "dead-list", "dead-show", "dead-retry",
        "dead-purge", "dead-export", "watch",
    ]

    /// Reads a command from its wire name and argument, or says why not.
    static func parse(name: String, argument: JSONValue?) -> Result<ControlCommand, ControlRefusal> {
        let argument = argument == .null ? nil : argument
        let noArgument: ControlCommand?
        switch name {
        case "status": noArgument = .status
        case "flush": noArgument = .flush
        case "offline": noArgument = .offline
        case "online": noArgument = .online
        default: noArgument = nil
        }
        if let noArgument {
            guard argument == nil else { return .failure(ControlRefusal(reason: "\"\(name)\" takes no argument")) }
            return .success(noArgument)
        }
        switch name {
        case "policy":
            guard let text = argument?.stringValue else { return .failure(ControlRefusal(reason: "\"policy\" needs the policy's text as a string argument")) }
            return .success(.policy(text))
        case "batch-size":
            guard case .int(let size)? = argument else { return .failure(ControlRefusal(reason: "\"batch-size\" needs an integer argument")) }
            return .success(.batchSize(size))
        case "pause", "resume", "retry-now":
            var destination: String?
            if let argument {
                guard let text = argument.stringValue else {
                    return .failure(ControlRefusal(reason: "\"\(name)\" takes a destination's name as a string, or nothing for every destination"))
                }
                if let problem = ControlProtocol.problem(withName: text) { return .failure(ControlRefusal(reason: problem)) }
                destination = text
            }
            switch name {
            case "pause": return .success(.pause(destination: destination))
            case "resume": return .success(.resume(destination: destination))
            default: return .success(.retryNow(destination: destination))
            }
        case "dead-list":
            return limit(argument, of: name, default: ControlProtocol.deadLetterPage.upperBound).map { .deadList(limit: $0) }
        case "dead-show":
            guard let argument, let id = ControlProtocol.deadLetterID(argument) else {
                return .failure(ControlRefusal(reason: "\"dead-show\" needs a dead letter's id: \(ControlProtocol.idRule)"))
            }
            return .success(.deadShow(id: id))
        case "dead-retry", "dead-purge":
            return selection(argument, of: name).map { name == "dead-retry" ? .deadRetry($0) : .deadPurge($0) }
        case "dead-export":
            var after: Int64 = 0
            if let given = argument?["after"], given != .null {
                guard case .int(let number) = given, number >= 0 else {
                    return .failure(ControlRefusal(reason: "\"dead-export\" takes \"after\": an id, a whole number 0 or more"))
                }
                after = Int64(number)
            }
            return limit(argument, of: name, default: ControlProtocol.deadLetterPage.upperBound).map { .deadExport(after: after, limit: $0) }
        case "watch":
            guard let argument else { return .success(.watch(intervalMilliseconds: ControlProtocol.defaultWatchInterval)) }
            let usage = "\"watch\" takes nothing, or {\"intervalMs\": N} with N a whole number in "
                + "\(ControlProtocol.watchIntervals.lowerBound)...\(ControlProtocol.watchIntervals.upperBound)"
            guard case .object(let members) = argument, Set(members.keys).isSubset(of: ["intervalMs"]) else {
                return .failure(ControlRefusal(reason: usage))
            }
            guard let given = members["intervalMs"], given != .null else {
                return .success(.watch(intervalMilliseconds: ControlProtocol.defaultWatchInterval))
            }
            guard case .int(let interval) = given, ControlProtocol.watchIntervals.contains(interval) else {
                return .failure(ControlRefusal(reason: usage))
            }
            return .success(.watch(intervalMilliseconds: interval))
        default:
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            return .failure(ControlRefusal(reason: "unknown command \"\(PrintableText.line(shown))\"; known: \(known.joined(separator: ", "))"))
        }
    }

    /// The `limit` member of an object argument (or `default` without one).
    private static func limit(_ argument: JSONValue?, of name: String, default: Int) -> Result<Int, ControlRefusal> {
        guard let argument else { return .success(`default`) }
        guard case .object(let members) = argument, Set(members.keys).isSubset(of: ["limit", "after"]) else {
            return .failure(ControlRefusal(reason: "\"\(name)\" takes an object with \"limit\"\(name == "dead-export" ? " and \"after\"" : ""), or nothing"))
        }
        guard let given = members["limit"], given != .null else { return .success(`default`) }
        let page = ControlProtocol.deadLetterPage
        guard case .int(let limit) = given, page.contains(limit) else {
            return .failure(ControlRefusal(reason: "\"limit\" must be a whole number in \(page.lowerBound)...\(page.upperBound)"))
        }
        return .success(limit)
    }

    /// `{"matching": {"destination", "reason", "text"}}`: each part optional, at least one
    /// given, each 1…``DeadLetterQuery/maxPartBytes`` bytes without NUL.
    private static func query(_ argument: JSONValue?, of name: String) -> Result<DeadLetterQuery, ControlRefusal> {
        let usage = "\"\(name)\" {\"matching\": …} takes an object with \"destination\", \"reason\" and/or \"text\" strings"
        guard case .object(let members)? = argument, !members.isEmpty,
              Set(members.keys).isSubset(of: ["destination", "reason", "text"]) else {
            return .failure(ControlRefusal(reason: usage))
        }
        var parts: [String: String] = [:]
        for (key, value) in members {
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= DeadLetterQuery.maxPartBytes, !text.contains("\0") else {
                return .failure(ControlRefusal(reason: "\(usage); \"\(key)\" must be 1…\(DeadLetterQuery.maxPartBytes) bytes of text without NUL"))
            }
            parts[key] = text
        }
        return .success(DeadLetterQuery(destination: parts["destination"], reason: parts["reason"], text: parts["text"]))
    }

    /// `"all"`, an array of ids, or `{"matching": {…}}` (``query(_:of:)``).
    private static func selection(_ argument: JSONValue?, of name: String) -> Result<DeadLetterSelection, ControlRefusal> {
        let usage = "\"\(name)\" needs \"all\", an array of dead-letter ids (at most \(ControlProtocol.maxIDs)) or {\"matching\": {\"destination\", \"reason\", \"text\"}}"
        switch argument {
        case .string("all")?:
            return .success(.all)
        case .array(let values)?:
            guard !values.isEmpty, values.count <= ControlProtocol.maxIDs else { return .failure(ControlRefusal(reason: usage)) }
            var ids: [Int64] = []
            ids.reserveCapacity(values.count)
            for value in values {
                guard let id = ControlProtocol.deadLetterID(value) else {
                    return .failure(ControlRefusal(reason: "\(usage); \(ControlProtocol.idRule)"))
                }
                ids.append(id)
            }
            return .success(.ids(ids))
        case .object(let members)? where members.count == 1 && members["matching"] != nil:
            return query(members["matching"], of: name).map { .matching($0) }
        default:
            return .failure(ControlRefusal(reason: usage))
        }
    }
}
