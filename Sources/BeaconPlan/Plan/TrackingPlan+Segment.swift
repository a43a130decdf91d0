import BeaconWire

extension TrackingPlan {
    /// A Segment tracking plan's rules, as its Public API lists them and its Terraform
    /// provider writes them: an array of rules, or an object with one under `rules` (or
    /// `data.rules`). Each rule has a `type` (`TRACK`, `IDENTIFY`, `GROUP`, `PAGE`, `SCREEN`
    /// or `COMMON`), a `key` (the track event's name; a page's or screen's name, or none),
    /// a `version`, and a draft-07 JSON Schema of the whole event under `jsonSchema` (or
    /// `json_schema`), whose `properties`, `traits` and `context` describe those parts, and
    /// Segment's `labels` object at its root (read as an annotation). Of several versions of
    /// one event, the highest is kept.
    ///
    /// ```json
    /// {"rules": [{"type": "TRACK", "key": "Order Completed", "version": 1,
    ///             "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
    ///                            "properties": {"properties": {"required": ["order_id"]}}}}]}
    /// ```
    public init(segmentRules json: JSONValue) throws(PlanError) {
        let list = json.arrayValue ?? json.objectValue?["rules"]?.arrayValue
            ?? json.objectValue?["data"]?.objectValue?["rules"]?.arrayValue
        guard let list else {
            throw PlanError(path: "", reason: "not a Segment tracking plan: no array of rules (at the top, under \"rules\" or \"data.rules\")")
        }
        guard list.count <= Self.maxRules else { throw PlanError(path: "/rules", reason: "\(list.count) rules, more than \(Self.maxRules)") }
        var rules: [RuleKey: Rule] = [:]
        var common: [EventSchema] = []
        for (index, element) in list.enumerated() {
            let path = "/rules/\(index)"
            guard let rule = element.objectValue else { throw PlanError(path: path, reason: "a rule must be an object") }
            guard let type = rule["type"]?.stringValue else { throw PlanError(path: path + "/type", reason: "a rule needs a \"type\" (TRACK, IDENTIFY, GROUP, PAGE, SCREEN or COMMON)") }
            let version = rule["version"].map { $0.intValue } ?? 1
            guard let version, version >= 0 else { throw PlanError(path: path + "/version", reason: "a version must be a whole number, 0 or more") }
            let name: String?
            switch rule["key"] {
            case nil, .null?: name = nil
            case .string(let key)?: name = key
            default: throw PlanError(path: path + "/key", reason: "a key must be a string or null")
            }
            guard var schemaJSON = rule["jsonSchema"] ?? rule["json_schema"] else {
                throw PlanError(path: path, reason: "a rule needs its \"jsonSchema\"")
            }
            // Segment's own annotation at a rule schema's root (the event's labels), not a keyword.
            if case .object(var root) = schemaJSON, root["labels"]?.objectValue != nil {
                root["labels"] = nil
                schemaJSON = .object(root)
            }
            let schemaPath = path + (rule["jsonSchema"] != nil ? "/jsonSchema" : "/json_schema")
            let draft = schemaJSON.objectValue?["$schema"]?.stringValue.flatMap(SchemaDraft.init(schemaURI:)) ?? .draft7
            if let declared = schemaJSON.objectValue?["$schema"]?.stringValue, SchemaDraft(schemaURI: declared) == nil {
                throw PlanError(path: schemaPath + "/$schema", reason: "\"\(declared)\" is not a draft Beacon reads (draft-07 or 2020-12)")
            }
            let schema: JSONSchema
            do {
                schema = try JSONSchema(schemaJSON, draft: draft)
            } catch {
                throw PlanError(path: schemaPath + error.path, reason: error.explanation)
            }
            if type.uppercased() == "COMMON" {
                guard common.isEmpty else { throw PlanError(path: path, reason: "a second COMMON rule") }
                common = [EventSchema(part: nil, schema: schema)]
                continue
            }
            guard let call = Call(rawValue: type.lowercased()) else {
                throw PlanError(path: path + "/type", reason: "\"\(type)\" is not a rule type (TRACK, IDENTIFY, GROUP, PAGE, SCREEN or COMMON)")
            }
            if call == .track, name?.isEmpty ?? true { throw PlanError(path: path + "/key", reason: "a TRACK rule needs the event's name as its key") }
            let key = RuleKey(call: call, name: call == .identify || call == .group ? nil : name)
            if let existing = rules[key], existing.version >= version {
                guard existing.version != version else { throw PlanError(path: path, reason: "a second rule for \(call.rawValue) \(name ?? "") version \(version)") }
                continue
            }
            let part = call == .identify || call == .group ? "traits" : "properties"
            let partSchema = schemaJSON.objectValue?["properties"]?.objectValue?[part]?.objectValue
            let planned: PlannedNames?
            do {
                planned = try partSchema.flatMap { schema throws(SchemaError) in try PlannedNames(schema: schema, path: "/properties/" + part) }
            } catch {
                throw PlanError(path: schemaPath + error.path, reason: error.explanation)
            }
            rules[key] = Rule(
                call: call, name: key.name, version: version, schemas: [EventSchema(part: nil, schema: schema)], planned: planned,
                policy: nil, summary: rule["description"]?.stringValue)
        }
        self.init(rules: rules, common: common)
        name = (json.objectValue?["name"] ?? json.objectValue?["display_name"])?.stringValue
    }

    /// The most rules a plan may have.
    public static let maxRules = 10_000
}
