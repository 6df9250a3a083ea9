import DataStoreCore
import LMDB

extension DataStore {
    /// Writes a consistent copy of the store (one snapshot; writers go on meanwhile) into the
    /// directory `destination`, which must exist and be empty of stores. The copy is a store
    /// directory that opens like any other.
    ///
    /// - Parameters:
    ///   - destination: An existing directory holding no store.
    ///   - compact: Leave out free pages and renumber the copy, which can make it much smaller.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.storage` naming both paths when the copy cannot be written.
    /// - Complexity: O(size of the data file).
    public func backup(to destination: String, compact: Bool = false) throws {
        do {
            try environment.copy(to: destination, compact: compact)
        } catch {
            throw DataStoreError(
                .storage, "cannot back up \(path) to \(destination): \(error.context): \(error.reason)",
                underlying: error)
        }
    }

    /// Makes every commit so far durable. Needed only for a store opened with
    /// ``Durability/relaxed`` or ``Durability/none`` (with ``Durability/durable`` each save is
    /// durable when acknowledged), for example after a bulk import without syncing.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.storage` when the disk refuses the sync.
    public func sync() throws {
        do {
            try environment.sync(force: true)
        } catch {
            throw DataStoreError(.storage, "cannot sync \(path): \(error.context): \(error.reason)", underlying: error)
        }
    }
}
