/// The JSON Schema dialect a plan's schemas are written in.
///
/// The two differ where tracking plans meet them: draft-07 writes a tuple as an `items`
/// array (with `additionalItems` after it), keeps subschemas under `definitions`, reads
/// `dependencies`, and lets a `$ref` override the keywords beside it; 2020-12 writes a
/// tuple as `prefixItems` (with `items` after it), keeps subschemas under `$defs`, reads
/// `dependentRequired` and `dependentSchemas`, and applies a `$ref` beside its siblings.
public enum SchemaDraft: String, Sendable, Hashable, CaseIterable {
    case draft7 = "draft-07"
    case draft2020_12 = "2020-12"

    /// The draft a `$schema` URI names, or `nil` for one Beacon does not read.
    public init?(schemaURI: String) {
        let trimmed = schemaURI.hasSuffix("#") ? String(schemaURI.dropLast()) : schemaURI
        switch trimmed {
        case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema": self = .draft7
        case "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema": self = .draft2020_12
        default: return nil
        }
    }
}
