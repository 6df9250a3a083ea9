import DataStoreCore
import DataStoreEngine

/// The results of one query over a ``CollectionSnapshot``, read lazily a batch at a time: memory
/// holds one batch, whatever the number of matches.
///
/// Walk it with `for`-`in` inside the read closure,
///
/// ```swift
/// try messages.read { snapshot in
///     for message in try snapshot.query(params: ["created_ts >=": 1437108600]) { … }
/// }
/// ```
///
/// or with the throwing ``next()``. A `for`-`in` loop cannot throw: an error it meets (a damaged
/// record, a snapshot that had to yield) ends the loop, and `StoreCollection/read(_:)` throws
/// it when the closure returns. A cursor works only inside its read closure, on one task at a
/// time, like GRDB's cursors.
public final class QueryCursor<Element>: Sequence {
    private let holder: SnapshotHolder
    private let scan: ResumableScan
    private let materialize: ResumableScan.Materialize<Element>
    private let batchSize: Int
    private var walk: BatchWalk<Element>
    /// The most results held at once, for tests of the memory bound.
    package var peakBuffered: Int { walk.peakBuffered }

    init(
        holder: SnapshotHolder, scan: ResumableScan, query: Query, batchSize: Int,
        materialize: @escaping ResumableScan.Materialize<Element>
    ) {
        self.holder = holder
        self.scan = scan
        self.materialize = materialize
        self.batchSize = batchSize
        walk = BatchWalk(query)
    }

    /// The next result, or `nil` after the last.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record that cannot be read, `.snapshotExpired`
    ///   when the snapshot had to yield, `.closed` outside the read closure.
    /// - Complexity: amortised O(1) reads per result; a batch costs one seek.
    public func next() throws -> Element? {
        try walk.next { after in
            try holder.withTransaction { transaction in
                try scan.batch(after: after, count: batchSize, in: transaction, materialize: materialize)
            }
        }
    }

    /// Iterates the cursor; an error ends the iteration and is thrown by the read closure.
    public struct Iterator: IteratorProtocol {
        let cursor: QueryCursor<Element>

        /// The next result, or `nil` after the last or at the first error (which the read closure
        /// then throws).
        public mutating func next() -> Element? {
            do {
                return try cursor.next()
            } catch {
                cursor.holder.deferError(error)
                return nil
            }
        }
    }

    /// An iterator over the cursor's remaining results (iterating consumes them).
    public func makeIterator() -> Iterator { Iterator(cursor: self) }
}
