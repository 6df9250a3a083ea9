import DataStoreCore
import DataStoreEngine

/// A walk over the results of a ``ResumableScan`` one batch at a time, applying the query's
/// offset and limit as results are taken: what cursors and streams share, whatever reads their
/// batches (one snapshot, or a read transaction per page).
struct BatchWalk<Element> {
    private var buffer: [Element] = []
    private var taken = 0
    private var position: ScanPosition?
    private var exhausted = false
    private var toSkip: Int
    private var remaining: Int?
    /// The most results held at once.
    private(set) var peakBuffered = 0

    /// A walk from the start of `query`'s results.
    init(_ query: Query) {
        toSkip = Swift.max(0, query.offset)
        remaining = query.limit.map { Swift.max(0, $0) }
    }

    /// The next result, or `nil` after the last; `read` reads the batch after a position (`nil`:
    /// the first) when the last one is used up.
    mutating func next(
        reading read: (_ after: ScanPosition?) throws -> ResumableScan.Batch<Element>
    ) rethrows -> Element? {
        while remaining != 0 {
            if taken == buffer.count {
                if exhausted { return nil }
                // The batch read is the only one held: drop the last before reading the next.
                buffer.removeAll(keepingCapacity: true)
                let batch = try read(position)
                buffer = batch.items
                taken = 0
                peakBuffered = Swift.max(peakBuffered, buffer.count)
                position = batch.after
                exhausted = batch.after == nil
                continue
            }
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
}
