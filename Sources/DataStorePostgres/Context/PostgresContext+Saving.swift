public import DataStoreEngine
import DataStoreCore

extension PostgresContext {
    /// Saves the staged changes: a child's into its parent (returning `nil`; nothing reaches the
    /// server), a root's as one change set through the store's writer, returning once it is
    /// committed with the commit's identity.
    ///
    /// On failure nothing is written and the changes stay staged (``discard()`` drops them).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.conflict` listing the records that changed underneath the
    ///   context (with `ConflictPolicy.detect`); `.duplicateID`, `.notFound`,
    ///   `.uniqueViolation`, `.invalidValue` from the writes; `.network` when the server went away
    ///   before the commit (nothing written), `.timedOut` past a bound, `.outcomeUnknown` when the
    ///   answer to the commit was lost and the server could not say whether it landed.
    @discardableResult
    public func save() async throws -> CommitID? {
        if let parent {
            try merge(into: parent)
            return nil
        }
        guard let taken = try takeForSaving() else { return nil }
        defer { state.withLock { $0.work.saving = false } }
        let operations = try Self.operations(taken, policy: policy)
        let commit: Int64
        do {
            (_, commit) = try await store.writer.submit(operations)
        } catch let error as DataStoreError where policy == .detect && Self.wroteNothingKnowably(error) {
            throw try await conflict(taken) ?? error
        }
        state.withLock { $0.work.clear(saved: taken) }
        return CommitID(rawValue: Int(commit))
    }

    /// Whether `error` says the change set was refused by what the server holds, so that nothing of
    /// it was written and a conflict diagnosis reads the records as they were: not a lost
    /// connection, a bound that ran out or a closed store, where the diagnosis would need the
    /// server that failed, nor an outcome that may have committed, where it would mistake the
    /// save's own writes for changes underneath.
    static func wroteNothingKnowably(_ error: DataStoreError) -> Bool {
        ![.network, .outcomeUnknown, .timedOut, .closed].contains(error.code)
    }

    /// What a root context's save takes from its state.
    typealias TakenChanges = StagedWork<PreparedRow, TableLayout>

    /// Takes what to save and marks the context as saving, or returns `nil` when there is nothing
    /// to save. Ends the snapshot: its connection goes back to the pool while the save waits.
    private func takeForSaving() throws(DataStoreError) -> TakenChanges? {
        let policy = self.policy
        let (taken, snapshot) = try state.withLock { state throws(DataStoreError) in
            let taken = try state.work.beginSaving(policy: policy)
            state.snapshotEnded = nil
            return (taken, state.snapshot.take())
        }
        end(snapshot)
        return taken
    }

    /// The change set: with conflict detection, a check of each record read but not changed,
    /// then each staged change, expecting the version the context remembers.
    private static func operations(_ taken: TakenChanges, policy: ConflictPolicy) throws -> [RowOperation] {
        var operations: [RowOperation] = []
        let detect = policy == .detect
        if detect {
            for (key, version) in taken.versions where taken.changes[key] == nil {
                guard let layout = taken.table(for: key.collection) else { continue }
                operations.append(.check(id: key.id, key: try layout.idKey(key.id), layout, version: version))
            }
        }
        for key in taken.order {
            guard let layout = taken.table(for: key.collection), let change = taken.changes[key] else { continue }
            let version = detect ? taken.versions[key] ?? nil : nil
            switch change {
            case .insert(let row) where detect:
                operations.append(.insert(row, layout, expectingAbsent: true))
            case .insert(let row), .upsert(let row):
                operations.append(.upsert(row, layout, version: version))
            case .remove where detect:
                operations.append(.remove(id: key.id, key: try layout.idKey(key.id), layout, version: version))
            case .remove:
                operations.append(.discard(id: key.id, key: try layout.idKey(key.id), layout))
            }
        }
        return operations
    }

    /// After a failed save, the conflict naming every record whose version is not the one the
    /// context remembers (the failed change set wrote nothing), or `nil` when none changed.
    private func conflict(_ taken: TakenChanges) async throws -> DataStoreError? {
        var byCollection: [String: [(key: Key, version: Int?)]] = [:]
        for (key, version) in taken.versions { byCollection[key.collection, default: []].append((key, version)) }
        var changed: [String] = []
        for (name, records) in byCollection {
            guard let layout = taken.table(for: name) else { continue }
            let keys = try records.map { try layout.idKey($0.key.id) }
            let current = try store.pool.read("checking \(name) for conflicts") { connection in
                let result = try connection.executePrepared(
                    "SELECT id, version FROM \(layout.table) WHERE id = ANY($1::bytea[])", [.byteaArray(keys)])
                var versions: [[UInt8]: Int] = [:]
                for row in 0..<result.rowCount {
                    if let id = result.bytes(row, 0) { versions[id] = Int(result.int(row, 1) ?? 0) }
                }
                return versions
            }
            for (record, key) in zip(records, keys) where current[key] != record.version {
                changed.append(record.key.changeDescription(read: record.version, now: current[key]))
            }
        }
        guard !changed.isEmpty else { return nil }
        return DataStoreError.changedUnderneath(changed)
    }
}
