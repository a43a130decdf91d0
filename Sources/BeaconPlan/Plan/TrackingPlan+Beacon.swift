import BeaconWire

extension TrackingPlan {
    /// Beacon's own plan file (`Assets/plans/FORMAT.md` documents it field by field): the
    /// events by call and name, a JSON Schema for each part of each (`properties`, `traits`,
    /// `context`), and what to do about each kind of violation, for the plan and per event.
    ///
    /// ```json
    /// {"beaconPlan": 1, "name": "shop", "version": "7",
    ///  "onViolation": {"unplannedEvent": "block", "unplannedProperty": "omit", "invalid": "block"},
    ///  "track": {"Order Completed": {"properties": {"type": "object", "required": ["order_id"],
    ///                                               "properties": {"order_id": {"type": "string"}}}}}}
    /// ```
    ///
    /// Every field is checked: an unknown one, a wrong type or a schema Beacon cannot apply
    /// is refused, naming its place in the file.
    public init(beaconPlan json: JSONValue) throws(PlanError) {
        guard let root = json.objectValue else { throw PlanError(path: "", reason: "a plan must be a JSON object") }
        try Self.refuseUnknown(root, known: Self.rootFields, at: "")
        switch root["beaconPlan"] {
        case .int(1)?: break
        case nil: throw PlanError(path: "/beaconPlan", reason: "a Beacon plan says \"beaconPlan\": 1 (the format's version)")
        case let other?: throw PlanError(path: "/beaconPlan", reason: "format version \(other.shown) is not one Beacon reads (1)")
        }
        let draft: SchemaDraft
        switch root["draft"] {
        case nil, .string("draft-07")?: draft = .draft7
        case .string("2020-12")?: draft = .draft2020_12
        case let other?: throw PlanError(path: "/draft", reason: "\(other.shown) is not a draft Beacon reads (\"draft-07\" or \"2020-12\")")
        }
        let policy = try Self.policy(root["onViolation"], at: "/onViolation") ?? PlanPolicy()

        var rules: [RuleKey: Rule] = [:]
        var common: [EventSchema] = []
        if let spec = root["common"] {
            common = try Self.spec(spec, call: nil, name: nil, draft: draft, at: "/common").schemas
        }
        for call in Call.allCases {
            guard let value = root[call.rawValue] else { continue }
            let path = "/" + call.rawValue
            switch call {
            case .identify, .group:
                rules[RuleKey(call: call, name: nil)] = try Self.spec(value, call: call, name: nil, draft: draft, at: path)
            case .track, .page, .screen:
                guard let events = value.objectValue else { throw PlanError(path: path, reason: "\(call.rawValue) must be an object of events by name") }
                guard rules.count + events.count <= Self.maxRules else { throw PlanError(path: path, reason: "more than \(Self.maxRules) events") }
                for (name, spec) in events.sorted(by: { $0.key < $1.key }) {
                    let place = path + "/" + JSONPointer.escape(name)
                    if name.isEmpty { throw PlanError(path: place, reason: "an event needs a name") }
                    // "*" is every page or screen without a rule of its own.
                    let key = RuleKey(call: call, name: call != .track && name == "*" ? nil : name)
                    rules[key] = try Self.spec(spec, call: call, name: key.name, draft: draft, at: place)
                }
            }
        }
        self.init(rules: rules, common: common)
        format = .beacon
        self.policy = policy
        name = try Self.text(root["name"], at: "/name")
        version = try Self.text(root["version"], at: "/version")
    }

    static let rootFields = Set(["beaconPlan", "name", "version", "draft", "onViolation", "common"] + Call.allCases.map(\.rawValue))

    /// One event's entry: its schemas by part, its policy, its description and version.
    static func spec(_ value: JSONValue, call: Call?, name: String?, draft: SchemaDraft, at path: String) throws(PlanError) -> Rule {
        guard let spec = value.objectValue else { throw PlanError(path: path, reason: "an event's entry must be an object") }
        let parts: [String]
        switch call {
        case nil: parts = ["properties", "traits", "context"]
        case .identify?, .group?: parts = ["traits", "context"]
        case .track?, .page?, .screen?: parts = ["properties", "context"]
        }
        try refuseUnknown(spec, known: Set(parts + ["description", "onViolation", "version"]), at: path)
        var schemas: [EventSchema] = []
        var planned: PlannedNames?
        for part in parts {
            guard let json = spec[part] else { continue }
            let place = path + "/" + part
            do {
                schemas.append(EventSchema(part: part, schema: try JSONSchema(json, draft: draft)))
                if part != "context", let object = json.objectValue {
                    planned = try PlannedNames(schema: object, path: place)
                }
            } catch {
                throw PlanError(path: place + error.path, reason: error.explanation)
            }
        }
        let version: Int
        switch spec["version"] {
        case nil: version = 1
        case .int(let number)? where number >= 0 && number <= Int(Int32.max): version = number
        case let other?: throw PlanError(path: path + "/version", reason: "\(other.shown) is not a version (a whole number, 0 or more)")
        }
        if call == nil, spec["onViolation"] != nil {
            throw PlanError(path: path + "/onViolation", reason: "the common rule follows the plan's onViolation")
        }
        return Rule(
            call: call ?? .track, name: name, version: version, schemas: schemas, planned: planned,
            policy: try policy(spec["onViolation"], at: path + "/onViolation"),
            summary: try text(spec["description"], at: path + "/description"))
    }

    /// An `onViolation` object; `nil` when there is none.
    static func policy(_ value: JSONValue?, at path: String) throws(PlanError) -> PlanPolicy? {
        guard let value else { return nil }
        guard let fields = value.objectValue else { throw PlanError(path: path, reason: "onViolation must be an object") }
        try refuseUnknown(fields, known: ["unplannedEvent", "unplannedProperty", "invalid"], at: path)
        func action(_ field: String, allowing: [PlanAction]) throws(PlanError) -> PlanAction? {
            guard let value = fields[field] else { return nil }
            guard let text = value.stringValue, let action = PlanAction(rawValue: text), allowing.contains(action) else {
                throw PlanError(path: path + "/" + field, reason: "\(value.shown) is not one of \(allowing.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            }
            return action
        }
        var policy = PlanPolicy()
        if let chosen = try action("unplannedEvent", allowing: [.allow, .block]) { policy.unplannedEvent = chosen }
        if let chosen = try action("unplannedProperty", allowing: [.allow, .omit, .block]) { policy.unplannedProperty = chosen }
        if let chosen = try action("invalid", allowing: [.allow, .block]) { policy.invalid = chosen }
        return policy
    }

    static func text(_ value: JSONValue?, at path: String) throws(PlanError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            guard text.utf8.count <= 4_096 else { throw PlanError(path: path, reason: "longer than 4096 bytes") }
            return text
        case let other?: throw PlanError(path: path, reason: "\(other.shown) is not a string")
        }
    }

    static func refuseUnknown(_ fields: [String: JSONValue], known: Set<String>, at path: String) throws(PlanError) {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw PlanError(path: path + "/" + JSONPointer.escape(unknown), reason: "not a field of a Beacon plan here (expected one of \(known.sorted().joined(separator: ", ")))")
        }
    }
}

extension JSONValue {
    /// This value as compact JSON, cut at 60 bytes, for an error message.
    fileprivate var shown: String {
        let text = jsonString
        return text.utf8.count <= 60 ? text : String(decoding: text.utf8.prefix(57), as: UTF8.self) + "..."
    }
}
