/// The Segment call types the collector accepts.
enum EventType: Sendable, Hashable, CaseIterable {
    case track, identify, page, screen, group, alias

    /// The type's name on the wire, e.g. `track`.
    var name: StaticString {
        switch self {
        case .track: return "track"
        case .identify: return "identify"
        case .page: return "page"
        case .screen: return "screen"
        case .group: return "group"
        case .alias: return "alias"
        }
    }

    /// ``name`` as a `String`, built without interpolation: a string this short is stored
    /// inline, so it allocates nothing (interpolating ``name`` built a new string for
    /// every event).
    var text: String { name.description }

    /// The type whose name is `bytes`, or `nil` for an unknown type.
    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        for type in Self.allCases where Self.bytes(bytes, equal: type.name) {
            self = type
            return
        }
        return nil
    }

    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, equal literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[offset] != pointer[offset] {
            return false
        }
        return true
    }
}
