package import DataStoreCore

/// A batch of a ``ResumableWalk``'s matches, and where the next one starts (`nil`: there are no more).
package struct ScanBatch<Item> {
    package var items: [Item]
    package var after: ScanPosition?

    package init(items: [Item], after: ScanPosition?) {
        self.items = items
        self.after = after
    }
}

/// A walk over the results of a ``ResumableWalk`` one batch at a time, applying the query's
/// offset and limit as results are taken: what cursors and streams share, whatever reads their
/// batches (one snapshot, or a read per page) and on whichever store.
package struct BatchWalk<Element> {
    private var buffer: [Element] = []
    private var taken = 0
    private var position: ScanPosition?
    private var exhausted = false
    private var toSkip: Int
    private var remaining: Int?
    /// The most results held at once.
    package private(set) var peakBuffered = 0

    /// A walk from the start of `query`'s results.
    package init(_ query: Query) {
        toSkip = Swift.max(0, query.offset)
        remaining = query.limit.map { Swift.max(0, $0) }
    }

    /// The next result, or `nil` after the last; `read` reads the batch after a position (`nil`:
    /// the first) when the last one is used up.
    package mutating func next(
        reading read: (_ after: ScanPosition?) throws -> ScanBatch<Element>
    ) rethrows -> Element? {
        while remaining != 0 {
            if let element = take() { return element }
            if exhausted { return nil }
            dropBuffer()
            refill(try read(position))
        }
        return nil
    }

    /// ``next(reading:)`` for a store whose batches are read asynchronously.
    package mutating func next(
        readingAsync read: (_ after: ScanPosition?) async throws -> ScanBatch<Element>
    ) async rethrows -> Element? {
        while remaining != 0 {
            if let element = take() { return element }
            if exhausted { return nil }
            dropBuffer()
            refill(try await read(position))
        }
        return nil
    }

    /// The next buffered result past the offset, or `nil` when the buffer is used up.
    private mutating func take() -> Element? {
        while taken < buffer.count && remaining != 0 {
            let element = buffer[taken]
            taken += 1
            if toSkip > 0 {
                toSkip -= 1
                continue
            }
            remaining = remaining.map { $0 - 1 }
            return element
        }
        return nil
    }

    /// Drops the batch used up before the next is read, so that one batch at most is held.
    private mutating func dropBuffer() {
        buffer.removeAll(keepingCapacity: true)
        taken = 0
    }

    /// Holds `batch`, read once the last was dropped.
    private mutating func refill(_ batch: ScanBatch<Element>) {
        buffer = batch.items
        taken = 0
        peakBuffered = Swift.max(peakBuffered, buffer.count)
        position = batch.after
        exhausted = batch.after == nil
    }
}
