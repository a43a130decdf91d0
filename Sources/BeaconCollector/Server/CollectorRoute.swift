/// The collector's routes, by path.
enum CollectorRoute: Sendable, Hashable {
    /// `POST /v1/batch` and its aliases `POST /v1/b` and `POST /sdk/batch` (June's client).
    case batch
    /// `POST /v1/track`, `/v1/identify`, `/v1/page`, `/v1/screen`, `/v1/group`, `/v1/alias`:
    /// one event object, whose type defaults to the path's.
    case single(defaultType: EventType)
    /// `GET /health`.
    case health
    /// `GET /v1/stats`.
    case stats
    /// `GET /metrics`.
    case metrics
    /// `GET` and `PUT /admin/faults`.
    case adminFaults
    /// `GET /v1/config?since=TOKEN` (only with ``CollectorConfiguration/configFeedPath``).
    case config

    /// Every path the collector serves.
    static let known: Set<String> = [
        "/v1/batch", "/v1/b", "/sdk/batch", "/v1/track", "/v1/identify", "/v1/page", "/v1/screen", "/v1/group", "/v1/alias",
        "/health", "/v1/stats", "/metrics", "/admin/faults", "/v1/config",
    ]

    /// The route for a path (a trailing slash is ignored), or `nil`.
    init?(path: String) {
        var path = path
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        switch path {
        case "/v1/batch", "/v1/b", "/sdk/batch": self = .batch
        case "/v1/track": self = .single(defaultType: .track)
        case "/v1/identify": self = .single(defaultType: .identify)
        case "/v1/page": self = .single(defaultType: .page)
        case "/v1/screen": self = .single(defaultType: .screen)
        case "/v1/group": self = .single(defaultType: .group)
        case "/v1/alias": self = .single(defaultType: .alias)
        case "/health": self = .health
        case "/v1/stats": self = .stats
        case "/metrics": self = .metrics
        case "/admin/faults": self = .adminFaults
        case "/v1/config": self = .config
        default: return nil
        }
    }

    /// The methods the route answers.
    var methods: [String] {
        switch self {
        case .batch, .single: return ["POST"]
        case .health, .stats, .metrics, .config: return ["GET", "HEAD"]
        case .adminFaults: return ["GET", "PUT"]
        }
    }

    /// Whether a `down` fault plan spares this route.
    var servedWhenDown: Bool {
        switch self {
        case .health, .adminFaults: return true
        default: return false
        }
    }
}
