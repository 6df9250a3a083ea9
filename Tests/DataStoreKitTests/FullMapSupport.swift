// Filling a store whose map may not grow, for the tests of what a full map leaves working.
import DataStoreCore
import LMDB
@testable import DataStoreKit

/// Adds notes to `store`, whose map may not grow, until even a small one fails, then runs
/// `whileFull` and returns the ids stored. From the small notes on, a snapshot held open keeps
/// LMDB from reusing the pages later commits free, so at the end no page is left for any commit;
/// it is let go after `whileFull`.
func fillMap(
    of store: DataStore, with notes: StoreCollection<Note>, whileFull: () async throws -> Void = {}
) async throws -> [String] {
    var stored: [String] = []
    var reader: ReadTransaction? = nil
    for (index, size) in (Array(repeating: 3_000, count: 200) + Array(repeating: 10, count: 400)).enumerated() {
        if size == 10 && reader == nil { reader = try store.environment.beginRead() }
        do {
            _ = try await notes.add(
                object: note("n\(index)", ts: Double(index), message: String(repeating: "m", count: size)))
            stored.append("n\(index)")
        } catch let error as DataStoreError where error.code == .storage {
            if size == 10 { break }
        }
    }
    try await whileFull()
    reader = nil
    return stored
}
