import Foundation

/// A fresh directory path under the system's temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory's path; nothing is created there until a test does.
    public let path: String

    /// A new path whose name carries `label`, so a leftover directory says which test made it.
    public init(_ label: String = "test") {
        path = NSTemporaryDirectory() + "datastorekit-\(label)-\(UUID().uuidString)"
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh directory path, removing the directory afterwards.
public func withTemporaryDirectory<R>(_ label: String = "test", _ body: (String) throws -> R) rethrows -> R {
    let directory = TemporaryDirectory(label)
    defer { directory.remove() }
    return try body(directory.path)
}
