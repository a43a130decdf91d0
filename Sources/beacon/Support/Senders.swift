import Beacon
import Foundation

/// Picks a sender from an endpoint: `file:///path.ndjson`, `log:`, or `http(s)://host:port`.
enum Senders {
    static func make(endpoint: String, writeKey: String?, timeout: Duration = .seconds(10)) throws -> any EventSender {
        if endpoint == "log" || endpoint == "log:" {
            return LogSender()
        }
        if endpoint.hasPrefix("file://") {
            let path = String(endpoint.dropFirst("file://".count))
            guard !path.isEmpty else { throw CLIError.badInput("--endpoint \(endpoint) names no file (e.g. file:///tmp/events.ndjson)") }
            return FileSender(path: path)
        }
        if endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") {
            return try makeHTTP(endpoint: endpoint, writeKey: writeKey, timeout: timeout)
        }
        throw CLIError.badInput(
            "--endpoint \(endpoint.debugDescription) is not an endpoint: use http://HOST:PORT, file:///PATH or log:")
    }
}
