import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = "lmdb") {
        path = NSTemporaryDirectory() + "datastorekit-\(label)-\(UUID().uuidString)"
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a fresh directory path, removing the directory afterwards.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) rethrows -> R {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory.path)
}

func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }
