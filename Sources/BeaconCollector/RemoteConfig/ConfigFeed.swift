import BeaconWire
import Foundation
import Logging
import Synchronization

/// The remote-configuration feed served at `GET /v1/config?since=TOKEN`, read from a JSON
/// file `{"settings": {...}}` and re-read whenever the file's modification time or size
/// changes.
///
/// Answers `{"settings": {...changed keys...}, "deleted": [...removed keys...],
/// "version_token": "<hash of the settings>"}`: with `since` equal to the current token,
/// no changes; with a token it served before, the difference; otherwise every setting,
/// and every known key the file does not set as deleted.
///
/// While the file is broken (unreadable, not JSON, no `settings` object), it serves the
/// last good version with a `"warning"` naming the problem, so engines keep a working
/// configuration and their dashboards show why an edit has not arrived. The problem is
/// logged once per change of the file, not on every poll.
final class ConfigFeed: Sendable {
    /// Keys engines understand (the wire contract's ``RemoteConfigKey``); a full answer
    /// lists those the file does not set as deleted.
    static let knownKeys = RemoteConfigKey.allCases.sorted().map(\.rawValue)
    /// Past versions remembered for differences.
    static let historyLimit = 64

    let path: String
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var stamp: FileStamp
        var version: Version
        /// Why the file as it is now (at `stamp`) is not served; `nil` when it is.
        var problem: String?
        var history: [String: [String: JSONValue]] = [:]
        var order: [String] = []
    }

    struct Version: Sendable, Hashable {
        var settings: [String: JSONValue]
        var token: String
    }

    struct FileStamp: Sendable, Hashable {
        var modified: Date?
        var size: Int?
    }

    /// Reads the file once; a missing or malformed file is a setup error.
    init(path: String, logger: Logger) throws(CollectorSetupError) {
        self.path = path
        self.logger = logger
        let stamp = Self.stamp(path)
        let version = try Self.load(path)
        state = Mutex(State(stamp: stamp, version: version, history: [version.token: version.settings], order: [version.token]))
    }

    /// The current version (re-reading the file if it changed).
    var current: Version { served.version }

    /// The version served and, when the file is broken, why it is the last good one.
    var served: (version: Version, problem: String?) {
        let stamp = Self.stamp(path)
        if let known = state.withLock({ $0.stamp == stamp ? ($0.version, $0.problem) : nil }) { return known }
        do {
            let version = try Self.load(path)
            return state.withLock { state in
                state.stamp = stamp
                state.version = version
                state.problem = nil
                if state.history[version.token] == nil {
                    state.history[version.token] = version.settings
                    state.order.append(version.token)
                    if state.order.count > Self.historyLimit { state.history[state.order.removeFirst()] = nil }
                }
                logger.info("config file re-read", metadata: ["path": "\(path)", "version_token": "\(version.token)"])
                return (version, nil)
            }
        } catch {
            // Serve the last good version: engines keep a working configuration while the
            // file is being edited or is broken; the log and the answer say why it was not
            // taken. Remembering the stamp logs this once per change of the file.
            let problem = "\(error.message) Serving the last good version."
            logger.warning("config file not reloaded; serving the last good version", metadata: ["error": "\(error.message)"])
            return state.withLock { state in
                state.stamp = stamp
                state.problem = problem
                return (state.version, problem)
            }
        }
    }

    /// The answer to a poll after `since`.
    func answer(since: String?) -> [UInt8] {
        let (version, problem) = served
        let known = state.withLock { state in since.flatMap { state.history[$0] } }
        var settings: [String: JSONValue] = [:]
        var deleted: [String] = []
        if since == version.token {
            // Up to date: nothing changed.
        } else if let known {
            settings = version.settings.filter { known[$0.key] != $0.value }
            deleted = known.keys.filter { version.settings[$0] == nil }.sorted()
        } else {
            settings = version.settings
            deleted = Self.knownKeys.filter { version.settings[$0] == nil }
        }
        return Self.encode(Answer(settings: settings, deleted: deleted, version_token: version.token, warning: problem))
    }

    private struct Answer: Encodable {
        var settings: [String: JSONValue]
        var deleted: [String]
        var version_token: String
        /// Present only while the file is broken.
        var warning: String?
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(value))
        } catch {
            // JSONValue trees and strings always encode; keep a valid answer if one ever does not.
            return Array(#"{"settings":{},"deleted":[],"version_token":""}"#.utf8)
        }
    }

    private static func stamp(_ path: String) -> FileStamp {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return FileStamp(modified: attributes[.modificationDate] as? Date, size: (attributes[.size] as? NSNumber)?.intValue)
        } catch {
            return FileStamp()  // missing file: `load` reports it
        }
    }

    static func load(_ path: String) throws(CollectorSetupError) -> Version {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CollectorSetupError(message: "Cannot read the config file \(path); check the path and its permissions.")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CollectorSetupError(message: "The config file \(path) is not valid JSON (\(error)).")
        }
        guard case .object(let object) = value, case .object(let settings)? = object["settings"] else {
            throw CollectorSetupError(message: #"The config file \#(path) must be a JSON object with a "settings" object, e.g. {"settings": {"batchSize": 50}}."#)
        }
        do {
            try RemoteConfigKey.check(settings: settings)
        } catch {
            throw CollectorSetupError(message: "The config file \(path) has a value engines would refuse: \(error).")
        }
        return Version(settings: settings, token: token(of: settings))
    }

    /// A content hash: the same settings give the same token, across restarts.
    static func token(of settings: [String: JSONValue]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in encode(settings) {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Collector {
    /// Reads a remote-config file (``CollectorConfiguration/configFeedPath``) as the
    /// collector would at start, without starting anything: for command lines that check
    /// their flags before opening a screen.
    public static func checkConfigFile(_ path: String) throws(CollectorSetupError) {
        _ = try ConfigFeed.load(path)
    }
}
