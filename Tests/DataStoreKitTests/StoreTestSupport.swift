import DataStoreCore
import DataStoreKit
import Foundation
import Testing

/// The seed's message, as a Codable struct.
struct Note: Codable, Equatable, Sendable {
    var id: String?
    var from_user_key: String
    var to_user_key: String
    var message: String
    var created_ts: Double
    var type: String
    var tags: [String]? = nil
}

/// A store in a fresh temporary directory, removed by `remove()`.
struct TemporaryStore {
    let path: String
    let store: DataStore

    init(options: DataStore.Options = DataStore.Options()) throws {
        path = NSTemporaryDirectory() + "datastorekit-store-\(UUID().uuidString)"
        store = try DataStore.open(path: path, options: options)
    }

    func remove() {
        store.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

func note(
    _ id: String?, from: String = "u1", to: String = "u2", ts: Double = 1_437_108_600, type: String = "text",
    message: String = "hello", tags: [String]? = nil
) -> Note {
    Note(id: id, from_user_key: from, to_user_key: to, message: message, created_ts: ts, type: type, tags: tags)
}

/// Fails the test when the store's records and index entries disagree.
func expectConsistent(_ store: DataStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let problems = try store.check()
    #expect(problems.isEmpty, "integrity problems: \(problems)", sourceLocation: sourceLocation)
}
