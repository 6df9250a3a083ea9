import DataStoreCore
import DataStoreKit
import Foundation

extension CrashHelper {
    /// `failing-commit`: run under Tests/Faults/failing-meta-write.c, which fails the next write of
    /// a meta page once `--trigger` names an existing file. Saves `before`, then makes the trigger
    /// and saves `during` (whose commit fails writing its meta page), then tries `after`; prints
    /// `BEFORE ok`, `DURING <code>` and `AFTER <code>` (`ok` or the error's code), and `MESSAGE
    /// <message>` of the failed commit.
    static func failingCommit(path: String, options: Options) async throws {
        guard let trigger = options.string("--trigger") else { fail("failing-commit needs --trigger FILE") }
        let store = try DataStore.open(path: path)
        let items = try await store.collection(
            "items", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }))
        _ = try await items.add(object: ["id": "before"])
        emit("BEFORE ok")
        guard FileManager.default.createFile(atPath: trigger, contents: nil) else { fail("cannot create \(trigger)") }
        for id in ["during", "after"] {
            do {
                _ = try await items.add(object: ["id": .string(id)])
                emit("\(id.uppercased()) ok")
            } catch let error as DataStoreError {
                emit("\(id.uppercased()) \(error.code)")
                if id == "during" { emit("MESSAGE \(error.message)") }
            }
        }
        emit("DONE")
    }
}
