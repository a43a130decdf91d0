import Beacon

extension Senders {
    static func makeHTTP(endpoint: String, writeKey: String?, timeout: Duration) throws -> any EventSender {
        do {
            return HTTPSender(configuration: try HTTPSenderConfiguration(endpoint: endpoint, writeKey: writeKey, requestTimeout: timeout))
        } catch {
            throw CLIError.badInput("--endpoint: \(error)")
        }
    }
}
