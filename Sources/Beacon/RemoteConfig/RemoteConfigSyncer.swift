import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

/// Polls the config feed and applies it live: settings through the ``SettingsStore``,
/// blocklist and sampling through the tracker's ``EventFilter``; the settings and the
/// version token are stored together in one transaction (``SyncImporter``). A bad
/// response changes nothing and is reported in ``status``. Given an observer, every status
/// change also goes to it as ``EngineEvent/remoteConfig(_:)``, so the engine's snapshots
/// (and the dashboard) show the version, the last sync and the last error.
///
/// Run it as a service (it stops on graceful shutdown); ``syncNow()`` polls at once.
///
/// ```swift
/// let filter = EventFilter()
/// let syncer = RemoteConfigSyncer(
///     importer: try SyncImporter(path: path), settings: engine.settings, filter: filter,
///     fetch: SyncHTTPFetcher(url: configURL).fetchFunction, interval: .seconds(60), clock: ContinuousClock())
/// ```
public actor RemoteConfigSyncer<C: Clock>: Service where C.Duration == Duration {
    private let importer: SyncImporter
    private let settings: SettingsStore
    private let filter: EventFilter
    private let fetch: @Sendable (String?) async throws -> [UInt8]
    /// Time between polls.
    public nonisolated let interval: Duration
    private nonisolated let clock: C
    private let observer: TrackingObserver?
    private let logger: Logger
    private let baseline: EngineSettings
    private var inFlight: Task<RemoteConfigStatus, Never>?
    private var isPolling = false
    private var subscribers: [UUID: AsyncStream<RemoteConfigStatus>.Continuation] = [:]

    /// The state now.
    public private(set) var status = RemoteConfigStatus()

    /// - Parameters:
    ///   - fetch: returns the feed's bytes for a `since` token (`nil` on the first poll).
    ///   - observer: told of every status change as ``EngineEvent/remoteConfig(_:)``, and
    ///     of failures and feed warnings as ``EngineEvent/problem(_:)``.
    public init(
        importer: SyncImporter, settings: SettingsStore, filter: EventFilter,
        fetch: @escaping @Sendable (String?) async throws -> [UInt8], interval: Duration, clock: C,
        observer: TrackingObserver? = nil, logger: Logger = Logger(label: "beacon.remote-config")
    ) {
        self.importer = importer
        self.settings = settings
        self.filter = filter
        self.fetch = fetch
        self.interval = interval
        self.clock = clock
        self.observer = observer
        self.logger = logger
        self.baseline = settings.current
    }

    /// Applies the stored configuration, then polls every ``interval`` until graceful
    /// shutdown or cancellation.
    public func run() async throws {
        isPolling = true
        defer { isPolling = false }
        await applyStored()
        publish()
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                await self.syncNow()
                do {
                    try await self.clock.sleep(for: self.interval)
                } catch {
                    return  // cancelled (shutdown): the loop ends here by design
                }
            }
        }
    }

    /// Polls now (or waits for the poll under way) and returns the resulting status.
    @discardableResult
    public func syncNow() async -> RemoteConfigStatus {
        if let inFlight { return await inFlight.value }
        // A task of its own, not a child: callers that come while it runs share it
        // (one request to the feed), and a caller that goes away cancels only its wait.
        let task = Task { await self.poll() }
        inFlight = task
        let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        inFlight = nil
        return result
    }

    /// Statuses as they change, starting with the current one.
    public func statuses() -> AsyncStream<RemoteConfigStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: RemoteConfigStatus.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers[id] = continuation
        continuation.yield(currentStatus())
        // A stream its reader ended is dropped at the next publish, which finds it terminated.
        return stream
    }

    // MARK: Internals

    private func currentStatus() -> RemoteConfigStatus {
        var current = status
        current.filtered = filter.counts
        return current
    }

    private func publish() {
        let current = currentStatus()
        for (id, continuation) in subscribers {
            if case .terminated = continuation.yield(current) { subscribers[id] = nil }
        }
        observer?.report(.remoteConfig(RemoteConfigSummary(current, interval: isPolling ? interval : nil)))
    }

    /// Puts the configuration stored by an earlier run in force (no network).
    private func applyStored() async {
        do {
            let (records, token) = try await importer.snapshot(of: RemoteConfigFeed.collection)
            guard token != nil, !records.isEmpty else { return }
            let stored = RemoteConfigFeed.checkedSettings(from: records)
            let config = try RemoteConfig(settings: stored.valid)
            putInForce(config)
            if !stored.problems.isEmpty {
                fail("stored settings refused and left out: " + stored.problems.map(\.description).joined(separator: "; "))
            }
            status.version = token
            publish()
        } catch {
            fail("the stored remote configuration could not be applied: \(error)")
        }
    }

    private func poll() async -> RemoteConfigStatus {
        do {
            let (records, token) = try await importer.snapshot(of: RemoteConfigFeed.collection)
            let bytes: [UInt8]
            do {
                bytes = try await fetch(token)
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError.fetch(reason: "\(error)")
            }
            let feed = try RemoteConfigFeed(json: bytes)
            let config = try RemoteConfig(settings: feed.merged(over: RemoteConfigFeed.checkedSettings(from: records).valid))
            try await importer.apply(feed: try feed.syncFeed)
            putInForce(config)
            status.version = feed.versionToken
            status.lastSync = Date()
            status.lastError = nil
            status.successes += 1
            status.consecutiveFailures = 0
            logger.debug("remote configuration applied", metadata: ["version_token": "\(feed.versionToken)"])
            noteWarning(feed.warning)
            publish()
        } catch {
            fail("\(error)")
        }
        return currentStatus()
    }

    private func putInForce(_ config: RemoteConfig) {
        let previous = status.config
        settings.update { config.apply(to: &$0, previous: previous, baseline: baseline) }
        filter.setRules(config.filterRules)
        status.config = config
    }

    /// Keeps the feed's warning in the status; a new one is logged and reported once.
    private func noteWarning(_ warning: String?) {
        defer { status.feedWarning = warning }
        guard let warning, warning != status.feedWarning else { return }
        logger.warning("the config feed reports a problem on its side", metadata: ["warning": "\(warning)"])
        observer?.report(.problem("remote config feed: \(warning)"))
    }

    private func fail(_ message: String) {
        status.lastError = message
        status.failures += 1
        status.consecutiveFailures += 1
        logger.warning("remote configuration not applied; settings unchanged", metadata: ["error": "\(message)"])
        observer?.report(.problem("remote config: \(message)"))
        publish()
    }
}
