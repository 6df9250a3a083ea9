import DataStoreCore
import LMDB
import DataStoreEngine

extension Context {
    /// Saves the staged changes: a child's into its parent (returning `nil`; nothing reaches
    /// disk), a root's as one change set through the store's writer, returning once it is
    /// committed (durably, by default) with the commit's identity.
    ///
    /// On failure nothing is written and the changes stay staged (``discard()`` drops them).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.conflict` listing the records that changed underneath the
    ///   context (with ``/DataStoreEngine/ConflictPolicy/detect``); `.duplicateID`, `.notFound`, `.uniqueViolation`,
    ///   `.invalidValue` from the writes; `.storage` when the commit fails.
    @discardableResult
    public func save() async throws -> CommitID? {
        if let parent {
            try merge(into: parent)
            return nil
        }
        let policy = self.policy
        guard let taken = try takeForSaving(policy: policy) else { return nil }
        defer { state.withLock { $0.work.saving = false } }
        // Encode here, in the caller's task, into a list of steps: the writer thread — which
        // every write in the process passes through — only walks it and stores bytes.
        let (steps, bytes) = Self.saveSteps(taken, policy: policy)
        let expected = policy == .detect ? try Self.rememberedVersions(taken) : []
        let (_, commit) = try await store.writer.submit(estimatedBytes: bytes, mayCommitOnCaller: true) {
            [steps, expected] transaction in
            try Self.checkThenApply(steps, expected: expected, policy: policy, in: &transaction)
        }
        // Nothing could be staged while the save ran (`saving`), so what is staged now is what was
        // saved — or nothing, after a `discard()`.
        state.withLock { $0.work.clear(saved: taken) }
        return commit
    }

    /// What a root context's save takes from its state.
    typealias TakenChanges = StagedWork<PreparedDocument, CollectionTable>

    /// Takes what to save and marks the context as saving, or returns `nil` when there is nothing
    /// to save. Ends the snapshot: a save must not hold a reader open while it waits for the writer
    /// (the writer may need every reader gone to grow the map).
    private func takeForSaving(policy: ConflictPolicy) throws(DataStoreError) -> TakenChanges? {
        try state.withLock { state throws(DataStoreError) in
            let taken = try state.work.beginSaving(policy: policy)
            state.snapshot = nil
            state.snapshotEnded = nil
            return taken
        }
    }

    /// The staged changes as steps for the writer, in staging order, and an estimate of their bytes.
    private static func saveSteps(_ taken: TakenChanges, policy: ConflictPolicy) -> (steps: [SaveStep], bytes: Int) {
        var steps: [SaveStep] = []
        steps.reserveCapacity(taken.order.count)
        var bytes = 0
        for key in taken.order {
            guard let storage = taken.table(for: key.collection), let change = taken.changes[key] else { continue }
            switch change {
            case .insert(let ready), .upsert(let ready):
                bytes += ready.body.count
                // Last writer wins: someone may have inserted it meanwhile; replace it.
                let mode: WriteMode = if case .insert = change, policy == .detect { .insert } else { .upsert }
                steps.append(SaveStep(id: key.id, storage: storage, write: (ready, mode)))
            case .remove:
                bytes += 64
                steps.append(SaveStep(id: key.id, storage: storage, write: nil))
            }
        }
        return (steps, bytes)
    }

    /// The versions the context remembers, to check against the store before applying.
    private static func rememberedVersions(_ taken: TakenChanges) throws -> [RememberedVersion] {
        var expected: [RememberedVersion] = []
        expected.reserveCapacity(taken.versions.count)
        for (key, version) in taken.versions {
            guard let storage = taken.table(for: key.collection) else { continue }
            let staged = taken.changes[key]
            // An insert of a record seen absent finds it present by itself (the put refuses an
            // existing key), so its version needs no lookup before applying.
            let insert = if version == nil, case .insert? = staged { true } else { false }
            // The record key, from the staged record when there is one.
            let recordKey =
                switch staged {
                case .insert(let ready)?, .upsert(let ready)?: ready.key
                case .remove?, nil: try storage.idKey(key.id)
                }
            expected.append(
                RememberedVersion(
                    key: key, recordKey: recordKey, storage: storage, version: version, checkedByInsert: insert))
        }
        return expected
    }

    /// One staged change, ready for the writer: a prepared document to write in a mode, or a
    /// removal (`write == nil`).
    struct SaveStep: Sendable {
        let id: Value
        let storage: CollectionTable
        let write: (document: PreparedDocument, mode: WriteMode)?
    }

    /// A record's version as the context last knew it (`nil`: absent).
    struct RememberedVersion: Sendable {
        let key: Key
        /// The record's key, encoded in the caller's task rather than on the writer thread.
        let recordKey: [UInt8]
        let storage: CollectionTable
        let version: Int?
        /// Staged as an insert of a record seen absent: its own put detects a record inserted
        /// underneath (see ``checkThenApply(_:expected:policy:in:)``).
        let checkedByInsert: Bool
    }

    /// Checks the remembered versions, then applies the steps. Throws `.conflict` listing every
    /// record that changed underneath the context, in preference to any other error.
    ///
    /// Records staged as inserts of something seen absent are not looked up first: their put
    /// refuses a key that exists, one b-tree descent fewer per insert on the writer thread. When
    /// a version changed or a step failed, the inserts not yet applied are looked up then — with
    /// the one that failed as a duplicate id, which was inserted underneath — so a conflict still
    /// wins and names every record. The inserts applied before found their key absent.
    private static func checkThenApply(
        _ steps: [SaveStep], expected: [RememberedVersion], policy: ConflictPolicy,
        in transaction: inout WriteTransaction
    ) throws {
        var changed = try changedRecords(expected, in: transaction) { !$0.checkedByInsert }
        var applied = 0
        var failure: (any Error)?
        if changed.isEmpty {
            do {
                return try apply(steps, policy: policy, applied: &applied, in: &transaction)
            } catch {
                // LMDB's own failures (map or transaction full, I/O) concern the batch, and leave
                // the transaction unusable for the lookups below: the writer must see them as is.
                if WriterCore.lmdbCode(of: error) != nil { throw error }
                failure = error
            }
        }
        // The step that failed (its record may hold this change set's own write unless the put
        // refused an existing key), or -1 when a version changed before any step ran.
        let failed = failure == nil ? -1 : applied
        let refused = (failure as? DataStoreError)?.code == .duplicateID
        var position: [Key: Int] = [:]
        for index in steps.indices where index >= max(failed, 0) {
            position[Key(collection: steps[index].storage.name, id: steps[index].id)] = index
        }
        changed += try changedRecords(expected, in: transaction) { record in
            guard record.checkedByInsert, let index = position[record.key] else { return false }
            return index > failed || (index == failed && refused)
        }
        if changed.isEmpty, let failure { throw failure }
        throw DataStoreError.changedUnderneath(changed)
    }

    /// Describes each record of `expected` chosen by `include` whose version is not the one
    /// remembered.
    private static func changedRecords(
        _ expected: [RememberedVersion], in transaction: borrowing WriteTransaction,
        where include: (RememberedVersion) -> Bool
    ) throws -> [String] {
        var changed: [String] = []
        for record in expected where include(record) {
            let current = try transaction.withValue(forKey: record.recordKey, in: record.storage.records) {
                try RecordVersion.read($0)
            }
            if current != record.version {
                changed.append(record.key.changeDescription(read: record.version, now: current))
            }
        }
        return changed
    }

    /// Applies `steps` in order, counting in `applied` those that succeeded.
    private static func apply(
        _ steps: [SaveStep], policy: ConflictPolicy, applied: inout Int, in transaction: inout WriteTransaction
    ) throws {
        for step in steps {
            if let (document, mode) = step.write {
                try step.storage.write(document, mode: mode, in: &transaction)
            } else {
                do {
                    _ = try step.storage.remove(id: step.id, in: &transaction)
                } catch let error as DataStoreError where error.code == .notFound && policy == .lastWriterWins {
                    // Already gone: the net effect holds.
                }
            }
            applied += 1
        }
    }
}
