import Foundation

/// Where a ``PostgresEventStore`` connects and how many connections it may open.
///
/// ```swift
/// let store = try PostgresStoreConfiguration(url: "postgres://beacon:secret@127.0.0.1:5432/beacon")
/// var configuration = CollectorConfiguration(port: 0)
/// configuration.postgres = store
/// ```
///
/// Its `description` never shows the password.
public struct PostgresStoreConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The role to log in as.
    public var username: String
    /// The role's password, if it needs one.
    public var password: String?
    /// The database to use.
    public var database: String
    /// A schema to create and use instead of `public` (tests isolate runs with it); `nil` uses the role's search path.
    public var schema: String?
    /// The most connections the collector opens (its pool size).
    public var poolSize: Int
    /// How long a batch may wait for a connection and its commit before it is answered 503.
    public var operationTimeout: Duration
    /// Batches that may wait for the database at once, per connection; one more is answered 503 at once.
    public var pendingPerConnection: Int

    /// The default pool size.
    public static let defaultPoolSize = 4

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 5432, username: String, password: String?, database: String,
        schema: String? = nil, poolSize: Int = defaultPoolSize, operationTimeout: Duration = .seconds(5),
        pendingPerConnection: Int = 4
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.schema = schema
        self.poolSize = poolSize
        self.operationTimeout = operationTimeout
        self.pendingPerConnection = pendingPerConnection
    }

    /// Reads `postgres://USER:PASS@HOST:PORT/DB` (or `postgresql://`); user and password may
    /// be percent-encoded, and `?schema=NAME` picks a schema.
    ///
    /// - Throws: ``CollectorSetupError`` naming what is missing; the message never holds the password.
    public init(url text: String, poolSize: Int = defaultPoolSize) throws(CollectorSetupError) {
        let example = "use postgres://USER:PASS@HOST:PORT/DB"
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw CollectorSetupError(message: "The store address is not a postgres:// URL; \(example).")
        }
        guard let host = url.host, !host.isEmpty else {
            throw CollectorSetupError(message: "The store address names no host; \(example).")
        }
        guard let username = url.user?.removingPercentEncoding, !username.isEmpty else {
            throw CollectorSetupError(message: "The store address names no user; \(example).")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        guard !database.isEmpty, !database.contains("/") else {
            throw CollectorSetupError(message: "The store address names no database; \(example).")
        }
        let port = url.port ?? 5432
        guard (1...65_535).contains(port) else {
            throw CollectorSetupError(message: "The store address's port \(port) is out of range; \(example).")
        }
        let schema = url.queryItems?.first { $0.name == "schema" }?.value
        if let schema, !Self.isPlainName(schema) {
            throw CollectorSetupError(message: "The store schema must be letters, digits and underscores, starting with a letter.")
        }
        self.init(
            host: host, port: port, username: username, password: url.password?.removingPercentEncoding,
            database: database, schema: schema, poolSize: poolSize)
    }

    /// `postgres://USER:***@HOST:PORT/DB`: safe to log.
    public var description: String {
        let secret = password == nil ? "" : ":***"
        return "postgres://\(username)\(secret)@\(host):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }

    /// True for an unquoted SQL identifier: a letter, then letters, digits or underscores (at most 63).
    static func isPlainName(_ name: String) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        let scalars = name.unicodeScalars
        guard let first = scalars.first, isLetter(first), scalars.count <= 63 else { return false }
        return scalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
