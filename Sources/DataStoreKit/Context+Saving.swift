import DataStoreCore
import LMDB

extension Context {
    /// Saves the staged changes: a child's into its parent (returning `nil`; nothing reaches
    /// disk), a root's as one change set through the store's writer, returning once it is
    /// committed (durably, by default) with the commit's identity.
    ///
    /// On failure nothing is written and the changes stay staged (``discard()`` drops them).
    /// - Throws: ``DataStoreError`` `.conflict` listing the records that changed underneath the
    ///   context (with ``ConflictPolicy/detect``); `.duplicateID`, `.notFound`, `.uniqueViolation`,
    ///   `.invalidValue` from the writes; `.storage` when the commit fails.
    @discardableResult
    public func save() async throws -> CommitID? {
        if let parent {
            try mergeIntoParent(parent)
            return nil
        }
        // Take what to save, and end the snapshot: a save must not hold a reader open while it
        // waits for the writer (the writer may need every reader gone to grow the map).
        let policy = self.policy
        let taken = try state.withLock { state throws(DataStoreError) in
            guard !state.saving else {
                throw DataStoreError(.conflict, "this context's save() is already committing; call it again after it returns")
            }
            state.snapshot = nil
            let nothing = state.order.isEmpty && (policy == .lastWriterWins || state.versions.isEmpty)
            if !nothing { state.saving = true }
            return (state.order, state.changes, state.versions, state.storages, nothing)
        }
        let (order, changes, versions, storages, nothing) = taken
        if nothing { return nil }
        defer { state.withLock { $0.saving = false } }
        // Encode here, in the caller's task: the writer thread only stores bytes.
        var prepared: [Key: PreparedDocument] = [:]
        var bytes = 0
        for key in order {
            guard let storage = storages[key.collection] else { continue }
            switch changes[key] {
            case .insert(let document)?, .upsert(let document)?:
                let ready = try storage.prepare(document, id: key.id)
                bytes += ready.body.count
                prepared[key] = ready
            case .remove?, nil:
                bytes += 64
            }
        }
        let (_, commit) = try await store.writer.submit(estimatedBytes: bytes) { [prepared] transaction -> ContextSaveReport in
            if policy == .detect {
                try Self.checkVersions(versions, storages: storages, in: transaction)
            }
            return try Self.apply(order: order, changes: changes, prepared: prepared, storages: storages, policy: policy,
                                  in: &transaction)
        }
        // Nothing could be staged while the save ran (`saving`), so what is staged now is what was
        // saved — or nothing, after a `discard()`.
        state.withLock { state in
            state.changes = [:]
            state.order = []
            for key in versions.keys { state.versions[key] = nil }
        }
        return commit
    }

    private func mergeIntoParent(_ parent: Context) throws {
        // The parent's lock first, then the child's (the only place both are held): the child's
        // changes are taken only once the parent is known to accept them.
        try parent.state.withLock { parentState throws(DataStoreError) in
            guard !parentState.saving else {
                throw DataStoreError(.conflict, "cannot save a child into its parent while the parent's save() is committing; "
                    + "save the child after it returns")
            }
            let taken = state.withLock { state in
                defer { state = State() }
                return state
            }
            parentState.storages.merge(taken.storages) { current, _ in current }
            for key in taken.order {
                if let change = taken.changes[key] { Self.combine(change, into: &parentState, at: key) }
            }
            // The parent keeps the earliest version it knew.
            for (key, version) in taken.versions where parentState.versions[key] == nil { parentState.versions[key] = version }
        }
    }

    /// Throws `.conflict` listing every remembered record whose version changed.
    private static func checkVersions(
        _ versions: [Key: Int?],
        storages: [String: CollectionStorage],
        in transaction: borrowing WriteTransaction
    ) throws {
        var conflicts: [String] = []
        for (key, remembered) in versions {
            guard let storage = storages[key.collection] else { continue }
            let current = try transaction.withValue(forKey: storage.idKey(key.id), in: storage.records) { try RecordVersion.read($0) }
            if current != remembered {
                let was = remembered.map { "version \($0)" } ?? "absent"
                let now = current.map { "version \($0)" } ?? "absent"
                conflicts.append("\(key.collection)/\(key.id) (read \(was), now \(now))")
            }
        }
        if !conflicts.isEmpty {
            throw DataStoreError(.conflict, "records changed since this context read them: "
                + conflicts.sorted().joined(separator: ", "))
        }
    }

    private static func apply(
        order: [Key],
        changes: [Key: Change],
        prepared: [Key: PreparedDocument],
        storages: [String: CollectionStorage],
        policy: ConflictPolicy,
        in transaction: inout WriteTransaction
    ) throws -> ContextSaveReport {
        var report: [String: CollectionChanges] = [:]
        for key in order {
            guard let change = changes[key], let storage = storages[key.collection] else { continue }
            var entry = report[key.collection] ?? CollectionChanges(collection: key.collection)
            switch change {
            case .insert:
                // Last writer wins: someone may have inserted it meanwhile; replace it.
                let mode: WriteMode = policy == .lastWriterWins ? .upsert : .insert
                let (previous, _) = try storage.write(prepared[key]!, mode: mode, in: &transaction)
                if previous == nil { entry.inserted.append(key.id) } else { entry.updated.append(key.id) }
            case .upsert:
                let (previous, _) = try storage.write(prepared[key]!, mode: .upsert, in: &transaction)
                if previous == nil { entry.inserted.append(key.id) } else { entry.updated.append(key.id) }
            case .remove:
                do {
                    _ = try storage.remove(id: key.id, in: &transaction)
                    entry.removed.append(key.id)
                } catch let error as DataStoreError where error.code == .notFound && policy == .lastWriterWins {
                    // Already gone: the net effect holds.
                }
            }
            report[key.collection] = entry
        }
        return ContextSaveReport(changes: report.keys.sorted().map { report[$0]! })
    }
}

/// What a context's save reports to observers.
struct ContextSaveReport: ReportsChanges {
    var changes: [CollectionChanges]
}
