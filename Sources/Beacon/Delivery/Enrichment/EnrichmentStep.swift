import BeaconWire
import Foundation

/// One step of an ``Enrichment`` chain.
public enum EnrichmentStep: Sendable {
    /// Sets fields of `context` (nested objects merge; existing values are replaced).
    case context([String: JSONValue])
    /// Sets `context.library`.
    case library(name: String, version: String)
    /// Sets `context.session` to `{"id": id}`: the provider's notion of a session.
    case session(id: String)
    /// Keeps only the events with these names (other call types pass).
    case keepEvents(Set<String>)
    /// Filters out the events with these names.
    case dropEvents(Set<String>)
    /// Renames events: old name to new name.
    case renameEvents([String: String])
    /// Renames keys of `properties`: old key to new key.
    case renameProperties([String: String])
    /// Any change to the event object; return `false` to filter the event out.
    case custom(name: String, @Sendable (inout [String: JSONValue]) -> Bool)

    /// Applies the step; returns why the event is filtered out, or `nil` to keep it.
    func apply(to event: inout [String: JSONValue]) -> String? {
        let name = event["event"]?.stringValue
        switch self {
        case .context(let fields):
            var context = event["context"]?.objectValue ?? [:]
            for (key, value) in fields { context[key] = Self.merge(context[key], value) }
            event["context"] = .object(context)
        case .library(let libraryName, let version):
            return EnrichmentStep.context(["library": ["name": .string(libraryName), "version": .string(version)]]).apply(to: &event)
        case .session(let id):
            return EnrichmentStep.context(["session": ["id": .string(id)]]).apply(to: &event)
        case .keepEvents(let names):
            if let name, !names.contains(name) { return "event '\(name)' is not in the destination's list" }
        case .dropEvents(let names):
            if let name, names.contains(name) { return "event '\(name)' is dropped for this destination" }
        case .renameEvents(let names):
            if let name, let renamed = names[name] { event["event"] = .string(renamed) }
        case .renameProperties(let keys):
            guard var properties = event["properties"]?.objectValue else { return nil }
            for (old, new) in keys {
                if let value = properties.removeValue(forKey: old) { properties[new] = value }
            }
            event["properties"] = .object(properties)
        case .custom(let stepName, let change):
            if !change(&event) { return "filtered by \(stepName)" }
        }
        return nil
    }

    private static func merge(_ existing: JSONValue?, _ new: JSONValue) -> JSONValue {
        guard case .object(var base)? = existing, case .object(let additions) = new else { return new }
        for (key, value) in additions { base[key] = merge(base[key], value) }
        return .object(base)
    }
}
