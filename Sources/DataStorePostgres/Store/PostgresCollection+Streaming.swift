public import DataStoreCore
public import DataStoreEngine

extension PostgresCollection {
    /// Runs `body` over one snapshot of the collection — a `REPEATABLE READ` transaction on one
    /// connection — whose cursors read lazily: the `Sequence` way to walk millions of results in
    /// the memory of one batch, as `StoreCollection.read(batchSize:_:)` does on LMDB.
    ///
    /// ```swift
    /// let total = try messages.read { snapshot in
    ///     var sum = 0
    ///     for message in try snapshot.query(params: ["created_ts >=": 1437108600]) { sum += message.message?.count ?? 0 }
    ///     return sum
    /// }
    /// ```
    ///
    /// The closure is synchronous and runs on the caller's thread, which waits for the server
    /// while a cursor reads a batch: from async code, prefer ``stream(params:options:pageSize:)``.
    /// The snapshot ends when the closure returns.
    /// - Parameters:
    ///   - batchSize: How many results a cursor reads at a time (at least 1).
    ///   - body: Reads through the snapshot; its result is `read`'s.
    /// - Throws: What `body` throws, or the first error a cursor's `for`-`in` loop met; `.network`.
    public func read<R>(batchSize: Int = 256, _ body: (PostgresSnapshot<Object>) throws -> R) throws -> R {
        store.refreshIndexesIfOld(of: layout)
        return try store.pool.read("reading a snapshot of \(name)") { connection in
            let snapshot = SnapshotConnection(connection, label: "a PostgresCollection.read snapshot of \(name)")
            defer { snapshot.close() }
            return try SnapshotConnection.inSnapshot(connection) {
                let result = try body(
                    PostgresSnapshot(collection: self, connection: snapshot, batchSize: max(1, batchSize)))
                if let deferred = snapshot.deferred { throw deferred }
                return result
            }
        }
    }

    /// The objects matching `params`, shaped by `options`, as an `AsyncSequence` that reads a
    /// page of `pageSize` at a time, each page in its own snapshot (see ``PostgresQueryStream``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` naming the key; `.invalidOption`
    ///   for a sort that no index serves (`query(params:options:)` sorts in memory instead).
    public func stream(params: [String: Value]?, options: [String: Value]? = nil, pageSize: Int = 1_000) throws
        -> PostgresQueryStream<Object>
    {
        let query = try Query(params: params, options: options)
        return PostgresQueryStream(
            collection: self, walker: try walker(for: query), query: query, pageSize: max(1, pageSize))
    }

    /// One page of at most `size` objects matching `params`, in `options`' sort order, starting
    /// after the last result of the page that gave `token` (at the start when `nil`): keyset
    /// pagination, as `StoreCollection.page(params:options:size:after:)` pages on LMDB.
    ///
    /// `options` may hold only `sort`, which an index must serve (or be the id order). Each page
    /// is read from its own snapshot; documents written between pages neither move the boundary
    /// nor repeat a result.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` (a `limit` or `offset`, a size
    ///   below 1, a sort no index serves); `.invalidPageToken` for a token that is damaged or was
    ///   made for another collection, query or plan; `.network`.
    public func page(
        params: [String: Value]?, options: [String: Value]? = nil, size: Int, after token: PageToken? = nil
    ) async throws -> Page<Object> {
        try ResumableWalk.checkPage(options: options, size: size)
        let query = try Query(params: params, options: options)
        await store.refreshIndexesIfOld(of: layout)
        let walker = try PostgresWindowWalk(
            layout: layout, walk: ResumableWalk(layout.plan(query), idField: layout.idField))
        let fingerprint = walker.walk.fingerprint
        let position = try token?.position(expecting: fingerprint, collection: name)
        let batch = try await batch(walker, after: position, count: size)
        return Page(objects: batch.items, next: batch.after.map { PageToken(fingerprint: fingerprint, position: $0) })
    }

    /// The walk of `query`'s plan in batches, over the index list as a read would use it now.
    func walker(for query: Query) throws -> PostgresWindowWalk {
        store.refreshIndexesIfOld(of: layout)
        return PostgresWindowWalk(layout: layout, walk: try ResumableWalk(layout.plan(query), idField: layout.idField))
    }

    /// The batch of `walker` after `position`, read in a snapshot of its own on a reader thread.
    func batch(_ walker: PostgresWindowWalk, after position: ScanPosition?, count: Int) async throws
        -> ScanBatch<Object>
    {
        try await store.readers.run {
            try self.store.pool.read("reading a page of \(self.name)") { connection in
                try SnapshotConnection.inSnapshot(connection) {
                    try walker.batch(after: position, count: count, on: connection) { body, _ in
                        try self.decode(body, id: nil)
                    }
                }
            }
        }
    }
}
