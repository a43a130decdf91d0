/// One combination of a scenario's ``ScenarioMatrix``: the settings it makes, and the
/// engine they give.
public struct ScenarioVariant: Sendable, Hashable {
    /// One value per axis of the matrix, in its order (none: the base engine).
    public var settings: [ScenarioEngineSetting]
    /// The engine the run uses: the scenario's `engine` with ``settings`` made.
    public var engine: ScenarioEngine

    /// Creates a variant.
    public init(settings: [ScenarioEngineSetting], engine: ScenarioEngine) {
        self.settings = settings
        self.engine = engine
    }

    /// The settings' labels joined, such as `b500 every 5s`; `base` for no settings.
    public var name: String {
        settings.isEmpty ? "base" : settings.map(\.label).joined(separator: " ")
    }
}
