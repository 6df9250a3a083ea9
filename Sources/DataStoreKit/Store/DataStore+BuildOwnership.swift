import DataStoreCore
import LMDB

/// What a declaration does about an index recorded `building`.
enum BuildClaim {
    /// This open of the store builds it (it registered it, or took over a dead owner's build).
    case build(IndexTable)
    /// Another process finished it, or it is gone.
    case settled
}

extension DataStore {
    /// Of `newIndexes`, those no other process registered meanwhile: the list is what the
    /// writer's hook reloaded inside the registering transaction. Runs inside that transaction.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/schemaMismatch`` when another process
    ///   registered one of these names with another definition.
    func unregistered(_ newIndexes: [IndexTable], in storage: CollectionTable) throws -> [IndexTable] {
        let current = storage.indexes
        return try newIndexes.filter { new in
            // Ours already (the change set applied again) or not there: registered by us.
            guard let existing = current.first(where: { $0.name == new.name }), existing.owner != buildOwner else {
                return true
            }
            guard existing.definition == new.definition else {
                throw DataStoreError(
                    .schemaMismatch,
                    "another process declared index \(new.name) on \(storage.name) as \(existing.definition) "
                        + "meanwhile, not as \(new.definition)")
            }
            return false
        }
    }

    /// Waits while a live process builds `pending` (polling `_meta` outside any transaction), and
    /// returns the index to build when this open of the store owns its build or takes it over
    /// from an owner that died. Ends when the owner finishes or dies.
    func claimBuild(of pending: IndexTable, in storage: CollectionTable) async throws -> BuildClaim {
        while true {
            guard let stored = try storedBuild(of: pending, in: storage.name) else {
                refreshSchemasForRead()
                return .settled
            }
            if stored.owner == buildOwner, let index = storage.indexes.first(where: { $0.name == pending.name }) {
                return .build(index)
            }
            if let owner = stored.owner, owner != buildOwner, owner.isAlive(seenBy: buildOwner) {
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            if let index = try await takeOver(pending, in: storage) { return .build(index) }
        }
    }

    /// The stored entry of `pending`'s index while it is `building` with `pending`'s definition.
    private func storedBuild(of pending: IndexTable, in collection: String) throws -> StoreSchema.Index? {
        let schema = try environment.read { try StoreSchema.read(collection, in: $0, meta: meta) }
        return schema?.indexes.first { $0.definition == pending.definition && $0.state == .building }
    }

    /// Records this open of the store as the builder of `pending`'s index, whose owner died (or
    /// is this open, whose list lost it), emptying what it left; `nil` when the stored schema no longer says so (another process
    /// took it over or finished it first).
    private func takeOver(_ pending: IndexTable, in storage: CollectionTable) async throws -> IndexTable? {
        let (claimed, _) = try await writer.submit(
            estimatedBytes: 0, exclusive: true, rollBack: indexRestorer(for: storage)
        ) { [self] transaction -> IndexTable? in
            guard
                var index = storage.indexes.first(where: {
                    $0.definition == pending.definition && $0.state == .building
                }),
                index.owner.map({ $0 == buildOwner || !$0.isAlive(seenBy: buildOwner) }) ?? true
            else { return nil }
            index.owner = buildOwner
            index.buildLog = index.definition.unique ? nil : IndexBuildLog()
            try transaction.empty(index.database)
            let claimed = index
            storage.replaceIndexes { list in
                for position in list.indices where list[position].name == claimed.name { list[position] = claimed }
            }
            try writeSchema(of: storage, in: &transaction)
            return claimed
        }
        return claimed
    }
}
