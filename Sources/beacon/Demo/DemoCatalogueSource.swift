import BeaconWire
import Foundation

extension DemoCatalogue {
    /// The catalogue for `beacon demo`: `--catalogue FILE` when given; else
    /// `Assets/demo-events.json` of the package the executable was built in (found by
    /// walking up from the executable); else the built-in one.
    static func load(explicitPath: String?) throws(CLIError) -> (catalogue: DemoCatalogue, source: String) {
        if let explicitPath {
            return (try DemoCatalogue(contentsOf: explicitPath), explicitPath)
        }
        if let found = packageAsset() {
            return (try DemoCatalogue(contentsOf: found), found)
        }
        return (builtIn, "built-in")
    }

    /// `Assets/demo-events.json` in a directory above the executable (a build lives in
    /// `<package>/.build*/<config>/beacon`), if there is one.
    static func packageAsset() -> String? {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("Assets/demo-events.json").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return nil
    }

    /// A small catalogue of a web shop's events, used when no file is found.
    static let builtIn = DemoCatalogue(
        entries: [
            Entry(name: "Page Viewed", weight: 6, properties: [
                "path": ["oneOf": ["/", "/pricing", "/docs", "/blog", "/signup"]],
                "durationMs": ["int": [20, 4000]],
            ]),
            Entry(name: "Product Viewed", weight: 3, properties: [
                "sku": ["oneOf": ["SKU-1001", "SKU-1002", "SKU-2001", "SKU-3003"]],
                "price": ["double": [4.99, 249.0]],
            ]),
            Entry(name: "Product Added", weight: 2, properties: [
                "sku": ["oneOf": ["SKU-1001", "SKU-1002", "SKU-2001"]],
                "quantity": ["int": [1, 4]],
            ]),
            Entry(name: "Order Completed", weight: 1, properties: [
                "total": ["double": [9.99, 499.0]],
                "currency": ["oneOf": ["EUR", "USD", "GBP"]],
                "coupon": ["bool": 0.2],
            ]),
            Entry(name: "Signed Up", weight: 1, properties: [
                "plan": ["oneOf": ["free", "pro", "team"]],
                "referrer": ["oneOf": ["search", "ad", "friend", "direct"]],
            ]),
        ],
        users: 50)
}
