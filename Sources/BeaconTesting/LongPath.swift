import Foundation

/// Paths of an exact length, for tests of the limits on a store's path.
public enum LongPath {
    /// A path of exactly `length` bytes under `directory` ending in `name`, its folders
    /// made (each at most 50 bytes long). When `directory` and `name` alone are longer,
    /// the path is just those.
    public static func make(length: Int, under directory: String, name: String = "/s.sqlite") throws -> String {
        var folder = directory
        while folder.utf8.count + name.utf8.count < length {
            let room = length - folder.utf8.count - name.utf8.count - 1
            folder += "/" + String(repeating: "d", count: max(1, min(50, room)))
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + name
    }
}
