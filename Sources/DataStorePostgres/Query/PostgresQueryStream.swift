import DataStoreCore
import DataStoreEngine

/// The results of a query as an `AsyncSequence` that pages under the hood, as the LMDB store's
/// `QueryStream` does: each page of ``pageSize`` results is read in a snapshot of its own on a
/// reader thread, and the next page starts after the last result's key, so a walk of millions of
/// results holds one page in memory and never holds a transaction across a suspension point.
///
/// Pages see successive commits: a document written during the walk is returned if its place in
/// the order is still ahead, and a document is never returned twice unless a write moves it ahead
/// of the walk (a sort key changed, or, without a sort, a changed indexed value).
public struct PostgresQueryStream<Object>: AsyncSequence, Sendable {
    /// The stream yields the collection's objects.
    public typealias Element = Object

    let collection: PostgresCollection<Object>
    let walker: PostgresWindowWalk
    let query: Query
    /// How many results each page reads.
    public let pageSize: Int

    /// A walk from the start: each iterator reads its own pages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }

    /// Reads a page when the last one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: PostgresQueryStream<Object>
        private var walk: BatchWalk<Object>

        init(stream: PostgresQueryStream<Object>) {
            self.stream = stream
            walk = BatchWalk(stream.query)
        }

        /// The next result, or `nil` after the last.
        /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record that cannot be read;
        ///   `.schemaMismatch` when the index the walk uses was dropped meanwhile; `.network`.
        public mutating func next() async throws -> Object? {
            let (collection, walker, pageSize) = (stream.collection, stream.walker, stream.pageSize)
            return try await walk.next(readingAsync: { after in
                try await collection.batch(walker, after: after, count: pageSize)
            })
        }
    }
}
