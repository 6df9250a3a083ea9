import DataStoreCore
import DataStoreEngine

/// The results of a query as an `AsyncSequence` that pages under the hood: each page of
/// ``pageSize`` results is read in its own short read transaction, and the next page seeks to
/// the key after the last result, so a walk of millions of results holds one page in memory and
/// never holds a snapshot across a suspension point.
///
/// ```swift
/// for try await message in try messages.stream(params: ["created_ts >=": 1437108600]) { … }
/// ```
///
/// Pages see successive commits: a document written during the walk is returned if its place
/// in the order is still ahead, and a document is never returned twice unless a write moves it
/// ahead of the walk (a sort key changed, or, without a sort, a changed indexed value).
public struct QueryStream<Object>: AsyncSequence, Sendable {
    /// The stream yields the collection's objects.
    public typealias Element = Object

    let collection: StoreCollection<Object>
    let scan: ResumableScan
    let query: Query
    /// How many results each page reads.
    public let pageSize: Int

    /// A walk from the start: each iterator reads its own pages.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }

    /// Reads a page when the last one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: QueryStream<Object>
        private var walk: BatchWalk<Object>

        init(stream: QueryStream<Object>) {
            self.stream = stream
            walk = BatchWalk(stream.query)
        }

        /// The next result, or `nil` after the last.
        /// - Throws: ``/DataStoreCore/DataStoreError`` `.codec` for a record that cannot be read; `.schemaMismatch`
        ///   when the index the walk uses was dropped meanwhile.
        public mutating func next() async throws -> Object? {
            try advance()
        }

        /// The next result, read on the caller's actor: a page is read synchronously, so iterating
        /// never hops to another executor and back for each result.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Object? {
            try advance()
        }

        private mutating func advance() throws -> Object? {
            let (collection, scan, pageSize) = (stream.collection, stream.scan, stream.pageSize)
            return try walk.next { after in
                try collection.withReadTransaction { transaction in
                    try scan.batch(after: after, count: pageSize, in: transaction) { body, _ in
                        try collection.decode(body, id: nil)
                    }
                }
            }
        }
    }
}
