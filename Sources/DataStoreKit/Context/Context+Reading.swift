public import DataStoreCore
import LMDB

extension Context {
    /// The root of this context's chain, which owns the snapshot.
    var root: Context { parent?.root ?? self }

    /// Runs `body` over the root's snapshot, beginning it on first use — or, `orLatestCommit`,
    /// over the latest commit when the root has no snapshot yet, beginning none. Calls on one
    /// chain run one at a time (an LMDB read transaction serves one thread at a time).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.snapshotExpired` once the snapshot was ended after being read
    ///   (past `DataStore.Options.maxSnapshotAge`, or to let the map grow), until `refresh()`.
    func withSnapshot<R: Sendable>(orLatestCommit: Bool = false, _ body: (borrowing ReadTransaction) throws -> R) throws
        -> R
    {
        let root = self.root
        return try root.state.withLock { state in
            if state.discarded { throw DataStoreError(.closed, "the context was discarded") }
            try root.checkSnapshotAge(&state)
            if state.snapshot == nil {
                if orLatestCommit { return try root.store.environment.read(body) }
                state.snapshot = try root.beginSnapshot(&state)
            }
            return try body(state.snapshot!.transaction)
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
        remember(Key(collection: storage.name, id: id), version: found?.version, table: storage)
        return found
    }

    /// Whether the record `key` (whose record key is `recordKey`) is in this context's view —
    /// staged changes over the snapshot — and the stored version read to tell, which the caller
    /// stages with (`.none` when the staged changes answered); nothing is decoded.
    func viewContains(_ key: Key, recordKey: [UInt8], in storage: CollectionTable) throws -> (
        present: Bool, read: Int??
    ) {
        switch stagedChange(key) {
        case .insert?, .upsert?: return (true, .none)
        case .remove?: return (false, .none)
        case nil:
            let version = try storedVersion(recordKey, in: storage)
            return (version != nil, .some(version))
        }
    }

    /// The stored version of the record `recordKey`, read in the root's snapshot when it has one,
    /// else in the latest commit without beginning one, so that a context that only adds or puts
    /// (the usual one-document unit of work) never registers a snapshot. Its caller remembers the
    /// version, and the save checks it: a record changed between this read and a snapshot begun
    /// later is a conflict, as it would be had the snapshot begun here.
    private func storedVersion(_ recordKey: [UInt8], in storage: CollectionTable) throws -> Int? {
        try withSnapshot(orLatestCommit: true) { transaction in
            try transaction.withValue(forKey: recordKey, in: storage.records) { try RecordVersion.read($0) }
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
        try viewDocuments(
            matching: query, in: storage.name, idField: storage.idField, table: storage, document: { try $0.document() }
        ) { query in
            let plan = storage.plan(query)
            return try withSnapshot { transaction in
                try QueryExecutor(storage: storage, plan: plan).run(in: transaction) { body, version in
                    (document: try RecordCodec.decode(body), version: Optional(version))
                }
            }
        }
    }
}
