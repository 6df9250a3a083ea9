public import DataStoreCore
import DataStoreEngine

extension PostgresContext {
    /// The root of this context's chain, which owns the snapshot.
    var root: PostgresContext { parent?.root ?? self }

    /// Runs `body` on the root's snapshot connection, beginning the snapshot on first use. Calls
    /// on one chain run one at a time (a connection serves one statement at a time).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.snapshotExpired` once the snapshot was lost
    ///   after being read (its connection went away, or the rollback of a refused statement
    ///   failed), until `refresh()`; `.network` when the server cannot be reached. A statement the
    ///   server refuses throws its error and leaves the snapshot readable.
    func withSnapshot<R>(_ what: String, _ body: (Connection) throws -> R) throws -> R {
        try withContextSnapshot(what) { snapshot in try body(snapshot.connection) }
    }

    /// ``withSnapshot(_:_:)`` lending the snapshot itself.
    func withContextSnapshot<R>(_ what: String, _ body: (ContextSnapshot) throws -> R) throws -> R {
        let root = self.root
        return try root.state.withLock { state in
            if let ended = state.snapshotEnded { throw DataStoreError(.snapshotExpired, ended) }
            if state.snapshot == nil { state.snapshot = try root.beginSnapshot(what) }
            do {
                return try body(state.snapshot!)
            } catch let error as PostgresError {
                // A statement the server refused (one naming an index another store dropped, whose
                // caller refreshes its index list and reads again) leaves the snapshot readable.
                var lostBecause = error.message
                if !error.isUnavailable {
                    guard let failure = state.snapshot?.recoveryFailure() else {
                        throw DataStoreError.postgres(error, what)
                    }
                    lostBecause += "; rolling back to the snapshot's savepoint failed: \(failure.message)"
                }
                // Its reads cannot go on over another snapshot without the view changing under them.
                if let lost = state.snapshot.take() { root.store.pool.checkIn(lost.connection) }
                state.snapshotEnded =
                    "this context's snapshot was lost (\(lostBecause)); call refresh() "
                    + "to read the latest commits (staged changes and conflict checks are kept) or discard()"
                throw DataStoreError.postgres(error, what)
            }
        }
    }

    private func beginSnapshot(_ what: String) throws -> ContextSnapshot {
        do throws(PostgresError) {
            let connection = try store.pool.checkOut()
            do throws(PostgresError) { return try ContextSnapshot(connection) } catch {
                store.pool.checkIn(connection)
                throw error
            }
        } catch {
            throw DataStoreError.postgres(error, what)
        }
    }

    /// The stored version and record of `id` in this context's snapshot, remembering the version.
    func storedRecord(_ id: Value, in layout: TableLayout) throws -> (version: Int, record: [UInt8])? {
        let key = try layout.idKey(id)
        let found = try withSnapshot("reading \(layout.name)/\(id)") { connection in
            let result = try connection.executePrepared(
                "SELECT record, version FROM \(layout.table) WHERE id = $1", [.bytes(key)])
            guard result.rowCount == 1, let record = result.bytes(0, 0) else { return nil as (Int, [UInt8])? }
            return (Int(result.int(0, 1) ?? 0), record)
        }
        remember(Key(collection: layout.name, id: id), version: found?.0, table: layout)
        return found.map { (version: $0.0, record: $0.1) }
    }

    /// Whether `id` is in this context's view — staged changes over the snapshot — remembering
    /// its stored version.
    func viewContains(_ id: Value, in layout: TableLayout) throws -> Bool {
        switch stagedChange(Key(collection: layout.name, id: id)) {
        case .insert?, .upsert?: return true
        case .remove?: return false
        case nil: return try storedRecord(id, in: layout) != nil
        }
    }

    /// The document `id` has in this context's view (staged changes over the snapshot), or `nil`.
    func viewDocument(_ id: Value, in layout: TableLayout) throws -> Document? {
        switch stagedChange(Key(collection: layout.name, id: id)) {
        case .insert(let row)?, .upsert(let row)?: return row.document
        case .remove?: return nil
        case nil:
            guard let record = try storedRecord(id, in: layout)?.record else { return nil }
            do { return try RecordCodec.decode(record) } catch {
                throw DataStoreError(.codec, "the record \(id) in \(layout.name) cannot be decoded", underlying: error)
            }
        }
    }

    /// The object stored under `id` as this context sees it: its staged changes over its snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    public func get<Object>(id: Value, from collection: PostgresCollection<Object>) throws -> Object {
        guard id != .null, let document = try viewDocument(id, in: collection.layout) else {
            throw DataStoreError(.notFound, "no object with id \(id) in \(collection.name)")
        }
        return try collection.mapping.decode(document)
    }

    /// The objects matching `params` as this context sees them: staged changes over the snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key, `.codec`, `.network`.
    public func query<Object>(
        _ collection: PostgresCollection<Object>,
        params: [String: Value]?,
        options: [String: Value]? = nil
    ) throws -> [Object] {
        try viewDocuments(matching: Query(params: params, options: options), in: collection.layout)
            .map(collection.mapping.decode)
    }

    /// The documents matching `query` in this context's view, remembering the version of each
    /// stored one read.
    func viewDocuments(matching query: Query, in layout: TableLayout) throws -> [Document] {
        try viewDocuments(
            matching: query, in: layout.name, idField: layout.idField, table: layout, document: { $0.document }
        ) { query in
            try store.refreshingIndexes(of: layout) {
                try withContextSnapshot("querying \(layout.name)") { snapshot in
                    // Only the indexes whose keys the snapshot's rows hold can find them.
                    let plan = layout.plan(query, over: try snapshot.indexes(of: layout))
                    return try PostgresQueryRunner(layout: layout, plan: plan).run(on: snapshot.connection) {
                        body, version in
                        (document: try RecordCodec.decode(body), version: Optional(Int(version)))
                    } ?? []
                }
            }
        }
    }
}
