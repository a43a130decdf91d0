import CLibdeflate

/// Why ``Gzip/compress(_:level:)`` failed.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Hashable {
        /// The compression level is outside 0...9.
        case invalidLevel
        /// The compressor could not be allocated.
        case outOfMemory
        /// libdeflate produced no output.
        case compressionFailed
    }

    /// The kind of failure.
    public var kind: Kind
    /// What went wrong, for logs.
    public var message: String

    /// Creates an error of `kind` described by `message`.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `gzip: <message>`.
    public var description: String {
        "gzip: \(message)"
    }
}
