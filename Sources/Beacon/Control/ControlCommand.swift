import BeaconWire

/// What a control request asks the engine to do.
public enum ControlCommand: Sendable, Hashable {
    /// A JSON snapshot: policy, batch size, offline, depth, destinations, command counts.
    case status
    /// Drain the queue now, to every destination.
    case flush
    /// Stop sending (events keep queueing).
    case offline
    /// Start sending again and drain the backlog.
    case online
    /// Set the flush policy from its text (`count 7`, `every 5s`, `manual`...).
    case policy(String)
    /// Set the batch size (within ``ControlProtocol/batchSizes``).
    case batchSize(Int)

    /// The command's name on the wire.
    public var name: String {
        switch self {
        case .status: return "status"
        case .flush: return "flush"
        case .offline: return "offline"
        case .online: return "online"
        case .policy: return "policy"
        case .batchSize: return "batch-size"
        }
    }

    /// The command's argument on the wire, if it has one.
    public var argument: JSONValue? {
        switch self {
        case .policy(let text): return .string(text)
        case .batchSize(let size): return .int(size)
        default: return nil
        }
    }

    /// Reads a command from its wire name and argument, or says why not.
    static func parse(name: String, argument: JSONValue?) -> Result<ControlCommand, ControlRefusal> {
        let noArgument: ControlCommand?
        switch name {
        case "status": noArgument = .status
        case "flush": noArgument = .flush
        case "offline": noArgument = .offline
        case "online": noArgument = .online
        default: noArgument = nil
        }
        if let noArgument {
            guard argument == nil || argument == .null else { return .failure(ControlRefusal(reason: "\"\(name)\" takes no argument")) }
            return .success(noArgument)
        }
        switch name {
        case "policy":
            guard let text = argument?.stringValue else { return .failure(ControlRefusal(reason: "\"policy\" needs the policy's text as a string argument")) }
            return .success(.policy(text))
        case "batch-size":
            guard case .int(let size)? = argument else { return .failure(ControlRefusal(reason: "\"batch-size\" needs an integer argument")) }
            return .success(.batchSize(size))
        default:
            let known = "status, flush, offline, online, policy, batch-size"
            let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
            return .failure(ControlRefusal(reason: "unknown command \"\(shown)\"; known: \(known)"))
        }
    }
}
