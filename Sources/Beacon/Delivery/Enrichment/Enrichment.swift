import BeaconWire
import Foundation

/// A destination's chain of steps, applied in order to each event just before it is sent
/// there: add generic fields (context, library, session), filter events out, or rename
/// and map fields the way one provider wants them. The stored event is never changed, so
/// each destination gets its own version of the same event.
///
/// ```swift
/// let analytics = Destination(name: "analytics", sender: sender, enrichment: [
///     .library(name: "shop-ios", version: "4.2.0"),
///     .session(id: sessionID),
///     .dropEvents(["Debug Tapped"]),
///     .renameEvents(["Order Completed": "purchase"]),
///     .renameProperties(["revenue": "value"]),
/// ])
/// ```
///
/// An empty chain sends the stored bytes as they are; a non-empty one decodes and
/// re-encodes each event (a few microseconds per event). Steps cannot change `messageId`:
/// it is how the collector deduplicates, so a step that changes it is undone.
public struct Enrichment: Sendable, ExpressibleByArrayLiteral {
    /// The steps, applied in order.
    public var steps: [EnrichmentStep]

    public init(_ steps: [EnrichmentStep] = []) { self.steps = steps }
    public init(arrayLiteral steps: EnrichmentStep...) { self.steps = steps }

    public var isEmpty: Bool { steps.isEmpty }

    /// What the chain makes of one event.
    public enum Outcome: Sendable, Hashable {
        /// Send this JSON.
        case send([UInt8])
        /// A step filtered the event out; the reason names the step.
        case filtered(reason: String)
    }

    /// Applies the chain to an event's JSON. An event that cannot be decoded (not an
    /// object) is sent unchanged: the collector will say what is wrong with it.
    public func apply(to payload: [UInt8]) -> Outcome {
        guard !steps.isEmpty else { return .send(payload) }
        guard let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)),  // undecodable: sent as is, see above
              case .object(var event) = decoded
        else { return .send(payload) }
        let messageId = event["messageId"]
        for step in steps {
            if let reason = step.apply(to: &event) { return .filtered(reason: reason) }
        }
        event["messageId"] = messageId
        var writer = JSONWriter(capacity: payload.count + 128)
        writer.write(event)
        return .send(writer.bytes)
    }
}
