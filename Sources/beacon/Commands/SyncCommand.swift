import ArgumentParser
import Beacon
import Foundation

/// `beacon sync`: applies one sync response (a file, or `GET URL?since=TOKEN`) to a store.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Apply a one-way sync feed (upserts, deletions, version_token) to a store.",
        discussion: """
            --from takes a file or an http(s) URL; a URL is fetched as URL?since=TOKEN with the stored token.
            Two shapes are accepted: a generic feed (collections as arrays of records with an "id", \
            "deleted": {collection: [ids]}, "version_token"), and the collector's config feed \
            (GET /v1/config: {"settings": {...}, "deleted": [keys], "version_token"}), whose settings \
            are checked and stored as the remote_config collection for an engine over this store.
            Prints one line: what was upserted and deleted, and the new version_token. Exit 2 for a bad \
            feed or file, 1 for a network or storage failure; either way the store is unchanged.
            """
    )

    @Option(help: "The store (SQLite file; created if missing).")
    var db: String

    @Option(help: "A feed file, or an http(s) URL to GET with ?since=TOKEN.")
    var from: String

    @Option(parsing: .unconditional, help: "Request timeout in seconds (URLs only; more than 0, at most 3600).")
    var timeout = 10.0

    /// The most a feed file may hold. A feed fetched over HTTP holds at most 1 MiB; a
    /// file may be a bulk import, but is still read whole and decoded into memory (about
    /// 3.6 times its size), so it is bounded too.
    static let maxFeedFileBytes = 64 << 20

    /// The bytes of the feed file at `path` (a pipe or `/dev/stdin` too), refused past
    /// ``maxFeedFileBytes`` without reading more.
    static func readFeedFile(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError.badInput("cannot read feed file \(path): \(String(cString: strerror(errno))); check the path")
        }
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw CLIError.badInput("cannot read feed file \(path): it is a directory; give a file")
        }
        let data: Data
        do {
            data = try file.read(upToCount: maxFeedFileBytes + 1) ?? Data()
        } catch {
            throw CLIError.badInput("cannot read feed file \(path): \(error.localizedDescription)")
        }
        guard data.count <= maxFeedFileBytes else {
            throw CLIError.badInput(
                "feed file \(path) holds more than \(maxFeedFileBytes) bytes (64 MiB), the most a feed may hold; split it")
        }
        return Array(data)
    }

    /// The longest `--timeout` accepted.
    static let maximumTimeout = Duration.seconds(3600)

    func validate() throws {
        _ = try requestTimeout
        if feedURL != nil, let port = HTTPEndpointError.portText(of: from),
            !(port.allSatisfy({ $0.isASCII && $0.isNumber }) && Int(port).map(HTTPEndpointError.ports.contains) == true)
        {
            throw ValidationError("--from \(from) has port '\(port)', out of range; use a port from 1 to 65535")
        }
    }

    /// `--timeout`, checked.
    var requestTimeout: Duration {
        get throws(ValidationError) {
            guard let limit = Duration(checkedSeconds: timeout, maximum: Self.maximumTimeout), limit > .zero else {
                throw ValidationError("--timeout must be a number of seconds more than 0 and at most 3600, not \(timeout)")
            }
            return limit
        }
    }

    /// `--from` when it is an http(s) URL.
    var feedURL: URL? {
        guard let url = URL(string: from), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return url
    }

    func run() async throws {
        let limit = try requestTimeout
        let importer: SyncImporter
        do {
            importer = try SyncImporter(path: db)
        } catch {
            throw CLIError.badInput(StorePath.openFailure(db, error))
        }
        let bytes: [UInt8]
        if let url = feedURL {
            let fetcher = SyncHTTPFetcher(url: url, timeout: limit)
            do {
                bytes = try await fetcher.fetch(since: try importer.versionToken)
            } catch {
                throw CLIError.runtime("\(error)")
            }
        } else {
            bytes = try Self.readFeedFile(from)
        }
        do {
            let result = SyncImporter.isConfigFeed(bytes) ? try await importer.applyConfigFeed(bytes) : try await importer.apply(bytes)
            Output.line(result.description)
        } catch {
            throw error.isBadInput ? CLIError.badInput("\(error)") : CLIError.runtime("\(error)")
        }
    }
}
