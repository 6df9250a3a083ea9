import DataStoreKit

extension CrashHelper {
    /// `compact <dir>`: opens the store (durable) and compacts the crash workload's collection
    /// over and over, printing `COMPACTED <n>` after each, until killed.
    static func compactLoop(path: String) async throws {
        let store = try DataStore.open(path: path)
        _ = try await CrashWorkload.collection(in: store)
        emit("READY")
        var compactions = 0
        while true {
            try await store.compact(collection: CrashWorkload.collectionName)
            compactions += 1
            emit("COMPACTED \(compactions)")
        }
    }
}
