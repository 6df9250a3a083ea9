public import DataStoreCore
import LMDB

extension Context {
    /// The root of this context's chain, which owns the snapshot.
    var root: Context { parent?.root ?? self }

    /// The staged change to `key` seen from this context: its own, else its parent's, and so on.
    func stagedChange(_ key: Key) -> Change? {
        if let change = state.withLock({ $0.changes.isEmpty ? nil : $0.changes[key] }) { return change }
        return parent?.stagedChange(key)
    }

    /// Every staged change to `collection` seen from this context (children override parents).
    func stagedChanges(in collection: String) -> [Value: Change] {
        var merged = parent?.stagedChanges(in: collection) ?? [:]
        state.withLock { state in
            for (key, change) in state.changes where key.collection == collection { merged[key.id] = change }
        }
        return merged
    }

    /// Runs `body` over the root's snapshot, beginning it on first use. Calls on one chain run
    /// one at a time (an LMDB read transaction serves one thread at a time).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.snapshotExpired` once the snapshot was ended after being read
    ///   (past `DataStore.Options.maxSnapshotAge`, or to let the map grow), until `refresh()`.
    func withSnapshot<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        let root = self.root
        return try root.state.withLock { state in
            if state.discarded { throw DataStoreError(.closed, "the context was discarded") }
            try root.checkSnapshotAge(&state)
            if state.snapshot == nil { state.snapshot = try root.beginSnapshot(&state) }
            return try body(state.snapshot!.transaction)
        }
    }

    /// Remembers the version `key` had when first read or changed here (for conflict detection).
    func remember(_ key: Key, version: Int?, storage: CollectionTable) {
        state.withLock { state in
            state.storages[key.collection] = storage
            if state.versions[key] == nil { state.versions[key] = .some(version) }
        }
    }

    /// The stored version and document of `id` in this context's snapshot, remembering the version.
    func storedRecord(_ id: Value, in storage: CollectionTable) throws -> (version: Int, document: Document)? {
        let key = try storage.idKey(id)
        let found = try withSnapshot { transaction in
            try transaction.withValue(forKey: key, in: storage.records) { record in
                (version: try RecordVersion.read(record), document: try storage.decodeDocument(record, id: "\(id)"))
            }
        }
        remember(Key(collection: storage.name, id: id), version: found?.version, storage: storage)
        return found
    }

    /// Whether the record `key` (whose record key is `recordKey`) is in this context's view —
    /// staged changes over the snapshot — remembering its stored version; nothing is decoded.
    func viewContains(_ key: Key, recordKey: [UInt8], in storage: CollectionTable) throws -> Bool {
        switch stagedChange(key) {
        case .insert?, .upsert?: return true
        case .remove?: return false
        case nil:
            let version = try withSnapshot { transaction in
                try transaction.withValue(forKey: recordKey, in: storage.records) { try RecordVersion.read($0) }
            }
            remember(key, version: version, storage: storage)
            return version != nil
        }
    }

    /// The document `id` has in this context's view (staged changes over the snapshot), or `nil`.
    func viewDocument(_ id: Value, in storage: CollectionTable) throws -> Document? {
        switch stagedChange(Key(collection: storage.name, id: id)) {
        case .insert(let prepared)?, .upsert(let prepared)?: return try prepared.document()
        case .remove?: return nil
        case nil: return try storedRecord(id, in: storage)?.document
        }
    }

    /// The object stored under `id` as this context sees it: its staged changes over its snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func get<Object>(id: Value, from collection: StoreCollection<Object>) throws -> Object {
        guard id != .null, let document = try viewDocument(id, in: collection.storage) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(collection.name)")
        }
        return try collection.mapping.decode(document)
    }

    /// The objects matching `params` as this context sees them: staged changes over the snapshot.
    public func query<Object>(
        _ collection: StoreCollection<Object>,
        params: [String: Value]?,
        options: [String: Value]? = nil
    ) throws -> [Object] {
        try viewDocuments(matching: Query(params: params, options: options), in: collection.storage)
            .map(collection.mapping.decode)
    }

    /// The documents matching `query` in this context's view, remembering the version of each
    /// stored one read.
    func viewDocuments(matching query: Query, in storage: CollectionTable) throws -> [Document] {
        let staged = stagedChanges(in: storage.name)
        // Without staged changes the store answers alone, limit and all; with them, the snapshot's
        // matches are merged with the staged documents and then sorted and cut.
        let base = staged.isEmpty ? query : Query(conditions: query.conditions, sort: query.sort)
        let plan = storage.plan(base)
        let rows = try withSnapshot { transaction in
            try QueryExecutor(storage: storage, plan: plan).run(in: transaction) { body, version in
                (try RecordCodec.decode(body), version)
            }
        }
        var documents: [Document] = []
        for (document, version) in rows {
            guard let id = document[storage.idField] else { continue }
            remember(Key(collection: storage.name, id: id), version: version, storage: storage)
            if staged[id] == nil { documents.append(document) }
        }
        if staged.isEmpty { return documents }
        for change in staged.values {
            if case .insert(let prepared) = change { documents.append(try prepared.document()) }
            if case .upsert(let prepared) = change { documents.append(try prepared.document()) }
        }
        return query.evaluate(documents, idField: storage.idField)
    }
}
