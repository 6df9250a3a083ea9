import DataStoreCore
import DataStoreEngine

/// The results of one query over a ``PostgresSnapshot``, read lazily a batch at a time: memory
/// holds one batch, whatever the number of matches (the LMDB store's `QueryCursor`).
///
/// A `for`-`in` loop cannot throw: an error it meets ends the loop, and
/// ``PostgresCollection/read(batchSize:_:)`` throws it when the closure returns. The throwing
/// ``next()`` says it at once. A cursor works only inside its read closure, on one task at a time.
public final class PostgresCursor<Element>: Sequence {
    private let snapshot: SnapshotConnection
    private let walker: PostgresWindowWalk
    private let materialize: ResumableWalk.Materialize<Element>
    private let batchSize: Int
    private var walk: BatchWalk<Element>

    init(
        snapshot: SnapshotConnection, walker: PostgresWindowWalk, query: Query, batchSize: Int,
        materialize: @escaping ResumableWalk.Materialize<Element>
    ) {
        self.snapshot = snapshot
        self.walker = walker
        self.materialize = materialize
        self.batchSize = batchSize
        walk = BatchWalk(query)
    }

    /// The most results held at once, for tests of the memory bound.
    package var peakBuffered: Int { walk.peakBuffered }

    /// The next result, or `nil` after the last.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record that cannot be read,
    ///   `.network` when the server cannot be read, `.closed` outside the read closure.
    /// - Complexity: amortised O(1) rows per result; a batch costs one statement or a few.
    public func next() throws -> Element? {
        let (snapshot, walker, batchSize, materialize) = (snapshot, walker, batchSize, materialize)
        return try walk.next { after in
            try snapshot.use { connection in
                try walker.batch(after: after, count: batchSize, on: connection, materialize: materialize)
            }
        }
    }

    /// Iterates the cursor; an error ends the iteration and is thrown by the read closure.
    public struct Iterator: IteratorProtocol {
        let cursor: PostgresCursor<Element>

        /// The next result, or `nil` after the last or at the first error (which the read closure
        /// then throws).
        public mutating func next() -> Element? {
            do {
                return try cursor.next()
            } catch {
                cursor.snapshot.deferError(error)
                return nil
            }
        }
    }

    /// An iterator over the cursor's remaining results (iterating consumes them).
    public func makeIterator() -> Iterator { Iterator(cursor: self) }
}
