/// The engine settings a scenario compares: for each key of its `matrix`, the values to try.
/// Its variants are every combination: keys in the `engine` object's order (``ScenarioEngine``'s
/// `policy`, `batchSize`, `maxConcurrentRequests`, `maxEvents`, `maxBytes`, `durability`), the
/// last varying fastest, and each key's values in the order written.
///
/// ```json
/// "matrix": { "batchSize": [100, 500], "policy": ["count 100 or every 1s", "every 5s"] }
/// ```
/// gives four variants: `count 100 or every 1s b100`, `count 100 or every 1s b500`,
/// `every 5s b100`, `every 5s b500`.
public struct ScenarioMatrix: Sendable, Hashable {
    /// One key's values, in the order written; every axis has at least one.
    public var axes: [[ScenarioEngineSetting]]

    /// The most values one key may list.
    public static let maxValuesPerKey = 12
    /// The most variants a matrix may make.
    public static let maxVariants = 36

    /// Creates a matrix of these axes (none: one variant, the base engine).
    public init(axes: [[ScenarioEngineSetting]] = []) {
        self.axes = axes.filter { !$0.isEmpty }
    }

    /// Every combination of one value per axis, each made on `base`.
    public func variants(of base: ScenarioEngine) -> [ScenarioVariant] {
        var combinations: [[ScenarioEngineSetting]] = [[]]
        for axis in axes {
            combinations = combinations.flatMap { prefix in axis.map { prefix + [$0] } }
        }
        return combinations.map { settings in
            var engine = base
            for setting in settings { setting.apply(to: &engine) }
            return ScenarioVariant(settings: settings, engine: engine)
        }
    }

    /// The matrix without the axis of `key`: a `--set` of that key pins it.
    public func pinning(_ key: String) -> ScenarioMatrix {
        ScenarioMatrix(axes: axes.filter { $0.first?.key != key })
    }

    static let keys = ScenarioEngine.keys

    /// Reads the `matrix` object: each member a key of the `engine` object with an array of
    /// 1 to 12 distinct values the engine takes; 36 variants at most.
    init(json node: ScenarioJSON, decoder: inout ScenarioDecoder) {
        self.init()
        guard let fields = decoder.object(node, path: "matrix", expected: "an object of engine settings to compare", known: Self.keys)
        else { return }
        var read: [[ScenarioEngineSetting]] = []
        for key in Self.keys {
            guard
                let elements = decoder.array(
                    fields, key, counts: 1...Self.maxValuesPerKey, expected: "an array of values to compare")
            else { continue }
            var axis: [ScenarioEngineSetting] = []
            for (index, element) in elements.enumerated() {
                guard let setting = ScenarioEngineSetting.read(key: key, node: element, path: "matrix", decoder: &decoder)
                else { continue }
                if axis.contains(where: { $0.text == setting.text }) {
                    decoder.report(element, "matrix.\(key)[\(index)]", "'\(ScenarioJSONReader.clip(setting.text))' is listed twice")
                    continue
                }
                axis.append(setting)
            }
            read.append(axis)
        }
        let count = read.reduce(1) { $0 * max(1, $1.count) }
        if count > Self.maxVariants {
            decoder.report(node, "matrix", "found \(count) combinations; expected at most \(Self.maxVariants) variants")
        }
        self.init(axes: read)
    }
}
