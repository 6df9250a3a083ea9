public import DataStoreCore
import LMDB

extension StoreCollection {
    /// Runs `body` over one snapshot of the collection, whose cursors read lazily: the
    /// `Sequence` way to walk millions of results in the memory of one batch.
    ///
    /// ```swift
    /// let total = try messages.read { snapshot in
    ///     var sum = 0.0
    ///     for message in try snapshot.query(params: ["created_ts >=": 1437108600]) { sum += message.size }
    ///     return sum
    /// }
    /// ```
    ///
    /// The closure is synchronous, so the snapshot is never held across a suspension point; it
    /// ends when the closure returns. See ``CollectionSnapshot`` for what ends it sooner.
    /// - Parameters:
    ///   - batchSize: How many results a cursor reads at a time (at least 1).
    ///   - body: Reads through the snapshot; its result is `read`'s.
    /// - Throws: What `body` throws, or the first error a cursor's `for`-`in` loop met.
    public func read<R>(batchSize: Int = 256, _ body: (CollectionSnapshot<Object>) throws -> R) throws -> R {
        let holder = try SnapshotHolder(store: store, label: "a StoreCollection.read snapshot of \(name)")
        let snapshot = CollectionSnapshot(collection: self, holder: holder, batchSize: max(1, batchSize))
        let result: R
        do {
            result = try body(snapshot)
        } catch {
            _ = holder.close()
            throw error
        }
        if let deferred = holder.close() { throw deferred }
        return result
    }

    /// The objects matching `params`, shaped by `options`, as an `AsyncSequence` that reads a
    /// page of `pageSize` at a time, each page in its own short read (see ``QueryStream``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` naming the key; `.invalidOption`
    ///   for a sort that no index serves (`query(params:options:)` sorts in memory instead).
    public func stream(params: [String: Value]?, options: [String: Value]? = nil, pageSize: Int = 1_000) throws
        -> QueryStream<Object>
    {
        let query = try Query(params: params, options: options)
        return QueryStream(collection: self, scan: try resumableScan(query), query: query, pageSize: max(1, pageSize))
    }

    /// One page of at most `size` objects matching `params`, in `options`' sort order, starting
    /// after the last result of the page that gave `token` (at the start when `nil`): keyset
    /// pagination, which seeks to the token's position instead of skipping rows as `offset` does.
    ///
    /// `options` may hold only `sort`: a page's size is `size`, and where it starts is the token.
    /// The sort must be served by an index (or be the id order); without a sort the order is the
    /// plan's. Each page is read from its own snapshot, and documents written between pages
    /// neither move the boundary nor repeat a result (see ``QueryStream``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption` (a `limit` or `offset`, a size
    ///   below 1, a sort no index serves); `.invalidPageToken` for a token that is damaged or was
    ///   made for another collection, query or plan.
    /// - Complexity: O(log n + size) reads, plus the rows of one run of equal sort keys.
    public func page(
        params: [String: Value]?, options: [String: Value]? = nil, size: Int, after token: PageToken? = nil
    ) throws -> Page<Object> {
        try makePage(params: params, options: options, size: size, after: token)
    }

    /// ``page(params:options:size:after:)`` from an async context.
    public func page(
        params: [String: Value]?, options: [String: Value]? = nil, size: Int, after token: PageToken? = nil
    ) async throws -> Page<Object> {
        try makePage(params: params, options: options, size: size, after: token)
    }

    private func makePage(
        params: [String: Value]?, options: [String: Value]?, size: Int, after token: PageToken?
    ) throws -> Page<Object> {
        try ResumableWalk.checkPage(options: options, size: size)
        let scan = try resumableScan(try Query(params: params, options: options))
        let fingerprint = scan.walk.fingerprint
        let position = try token?.position(expecting: fingerprint, collection: name)
        let batch = try withReadTransaction { transaction in
            try scan.batch(after: position, count: size, in: transaction) { body, _ in try decode(body, id: nil) }
        }
        return Page(
            objects: batch.items,
            next: batch.after.map { PageToken(fingerprint: fingerprint, position: $0) })
    }

    /// The walk of `query`'s plan in batches: the plan `query` itself gets (a limit can change
    /// which index serves best), run without its limit and offset, which the walker applies.
    func resumableScan(_ query: Query) throws -> ResumableScan {
        try ResumableScan(storage: storage, plan: plan(for: query))
    }

    /// Runs `body` over a fresh, short snapshot.
    func withReadTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try store.environment.read(body)
    }
}
