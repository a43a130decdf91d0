import BeaconWire
import Foundation
import Logging

/// Appends each batch's events to a file, one JSON object per line (NDJSON). For
/// offline capture, audits and tests. A write error is retryable (the events stay queued),
/// and the file is cut back to where the batch began: a full disk leaves no part of a
/// batch, nor half a line, for the retry to append to.
public struct FileSender: EventSender {
    /// The file's path.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    public var endpointDescription: String { "file://\(path)" }

    public func send(_ batch: OutgoingBatch) async -> SendResult {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(batch.eventBytes + batch.events.count)
        for event in batch.events {
            bytes.append(contentsOf: event.payloadBytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    return SendResult(.retryable(reason: "cannot create \(path)", retryAfter: nil))
                }
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer {
                do { try handle.close() } catch { /* close after a completed write: nothing left to lose */ }
            }
            let start = try handle.seekToEnd()
            do {
                try handle.write(contentsOf: bytes)
                try handle.synchronize()
            } catch {
                do {
                    try handle.truncate(atOffset: start)
                } catch let cut {
                    return SendResult(.retryable(
                        reason: "cannot write \(path): \(error.localizedDescription); nor cut it back to before this batch "
                            + "(\(cut.localizedDescription)): it may end with part of it",
                        retryAfter: nil))
                }
                throw error
            }
            return SendResult(.delivered, wireBytes: bytes.count)
        } catch {
            return SendResult(.retryable(reason: "cannot write \(path): \(error.localizedDescription)", retryAfter: nil))
        }
    }
}
