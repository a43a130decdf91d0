import BeaconWire
import Foundation

extension TrackingPlan {
    /// The largest plan file Beacon reads: a plan of a thousand events of a hundred
    /// properties each is about 4 MiB.
    public static let maxFileBytes = 16 << 20

    /// A plan file's bytes: Beacon's own format (`"beaconPlan": 1`) or a Segment tracking
    /// plan's rules, told apart by their shape. Refused, naming where, when it is larger
    /// than ``maxFileBytes``, not UTF-8, not JSON, or not a plan Beacon can apply.
    public static func load(_ bytes: some Collection<UInt8>) throws(PlanError) -> TrackingPlan {
        guard bytes.count <= maxFileBytes else {
            throw PlanError(path: "", reason: "\(bytes.count) bytes, larger than the \(maxFileBytes >> 20) MiB a plan may be")
        }
        let data = Data(bytes)
        if String(validating: data, as: UTF8.self) == nil {
            let valid = Self.validUTF8Prefix(data)
            throw PlanError(path: "", reason: "not UTF-8 text: an invalid byte at offset \(valid)")
        }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw PlanError(path: "", reason: "not JSON: \(Self.describe(decoding: error))")
        }
        if json.objectValue?["beaconPlan"] != nil { return try TrackingPlan(beaconPlan: json) }
        if json.arrayValue != nil || json.objectValue?["rules"] != nil || json.objectValue?["data"]?.objectValue?["rules"] != nil {
            var plan = try TrackingPlan(segmentRules: json)
            plan.format = .segment
            return plan
        }
        throw PlanError(path: "", reason: "neither a Beacon plan (\"beaconPlan\": 1) nor a Segment tracking plan (an array of rules, or one under \"rules\")")
    }

    /// The plan in the file at `path`, read only when it is a regular file no larger than
    /// ``maxFileBytes``.
    public static func load(contentsOf path: String) throws(PlanError) -> TrackingPlan {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw PlanError(path: "", reason: "cannot read \(path): no such file, or not allowed")
        }
        guard (attributes[.type] as? FileAttributeType) == .typeRegular else { throw PlanError(path: "", reason: "\(path) is not a regular file") }
        if let size = (attributes[.size] as? NSNumber)?.int64Value, size > Int64(maxFileBytes) {
            throw PlanError(path: "", reason: "\(path) is \(size) bytes, larger than the \(maxFileBytes >> 20) MiB a plan may be")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw PlanError(path: "", reason: "cannot open \(path)") }
        defer { try? handle.close() }  // read-only: nothing to lose at the close
        let data: Data
        do {
            // One byte past the bound: a file that grew since its size was read is still refused.
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw PlanError(path: "", reason: "cannot read \(path): \(error.localizedDescription)")
        }
        return try load(data)
    }

    /// How many bytes of `data` are valid UTF-8 before its first invalid sequence.
    static func validUTF8Prefix(_ data: Data) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return offset
    }

    static func describe(decoding error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
