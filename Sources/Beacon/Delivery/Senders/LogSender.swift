import BeaconWire
import Foundation
import Logging

/// Logs each batch (id, events, bytes) and counts it as delivered. For dry runs.
public struct LogSender: EventSender {
    private let logger: Logger

    public init(logger: Logger = Logger(label: "beacon.log-sender")) {
        self.logger = logger
    }

    public var endpointDescription: String { "log" }

    public func send(_ batch: OutgoingBatch) async -> SendResult {
        logger.info("batch", metadata: [
            "batch_id": "\(batch.id)", "events": "\(batch.events.count)", "bytes": "\(batch.eventBytes)",
            "attempt": "\(batch.attempt)",
        ])
        return SendResult(.delivered, wireBytes: batch.eventBytes)
    }
}
