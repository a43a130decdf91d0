import Beacon

/// Two destinations over one queue: each has its own sender, enrichment, progress and backoff.
func makeTwoDestinationEngine(queue: any EventQueue, sessionID: String) throws -> BeaconEngine<ContinuousClock> {
    let product = Destination(
        name: "product",
        sender: try HTTPSender(endpoint: "https://product.example.com", writeKey: "wk_1"),
        enrichment: [.library(name: "shop-ios", version: "4.2.0"), .session(id: sessionID)])
    let ads = try Destination(
        name: "ads",
        sender: try HTTPSender(endpoint: "https://ads.example.com", writeKey: "wk_2"),
        enrichment: [
            .dropEvents(["Debug Tapped"]),
            .renameEvents(["Order Completed": "purchase"]),
            .renameProperties(["revenue": "value"]),
        ],
        maxConcurrentRequests: 4)
    return BeaconEngine(queue: queue, destinations: [product, ads])
}
