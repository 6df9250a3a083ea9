import Synchronization

extension ChangeFeed {
    /// The feed as an `AsyncStream` (the stores' `changes()`): it ends, rather than throwing, when
    /// the feed fails (a consumer so slow that its next commits were trimmed) or ends.
    package var stream: AsyncStream<CommitEvent> {
        let slot = IteratorSlot(makeAsyncIterator())
        return AsyncStream {
            // Taken out while it waits, so a second consumer of the same stream ends rather than
            // racing the first.
            guard var current = slot.iterator.withLock({ $0.take() }) else { return nil }
            let event = try? await current.next()
            if event != nil { slot.iterator.withLock { $0 = current } }
            return event
        }
    }

    /// The iterator behind one stream.
    private final class IteratorSlot: Sendable {
        let iterator: Mutex<Iterator?>
        init(_ iterator: Iterator) { self.iterator = Mutex(iterator) }
    }
}
