import Beacon

extension Senders {
    static func makeHTTP(endpoint: String, writeKey: String?, timeout: Duration) throws -> any EventSender {
        throw CLIError.runtime("HTTP endpoints arrive with the HTTP sender")
    }
}
