import DataStoreCore
import Synchronization

/// A change set's result that reports what it changed.
protocol ReportsChanges: Sendable {
    var changes: [CollectionChanges] { get }
}

/// Fans committed changes out to observers. Publishing never waits for an observer: each has an
/// unbounded buffer, so a slow observer costs memory, never writer time.
final class ChangeHub: Sendable {
    /// The open streams; `nil` once the store has closed, when no commit can follow.
    private let observers = Mutex<[Int: AsyncStream<CommitEvent>.Continuation]?>([:])
    private let nextID = Atomic<Int>(0)

    func subscribe() -> AsyncStream<CommitEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: CommitEvent.self, bufferingPolicy: .unbounded)
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0?.removeValue(forKey: id) }
        }
        let open = observers.withLock { observers in
            guard observers != nil else { return false }
            observers?[id] = continuation
            return true
        }
        if !open { continuation.finish() }
        return stream
    }

    /// Called by the writer thread after each commit, in commit order.
    func publish(commit: CommitID, results: [any Sendable]) {
        let listeners = observers.withLock { ($0 ?? [:]).values.map { $0 } }
        guard !listeners.isEmpty else { return }
        var merged: [String: CollectionChanges] = [:]
        var order: [String] = []
        for case let report as any ReportsChanges in results {
            // A change set that changed nothing (a remove of what was already gone, last writer
            // wins) is no change to tell.
            for change in report.changes
            where !(change.inserted.isEmpty && change.updated.isEmpty && change.removed.isEmpty) {
                if merged[change.collection] == nil {
                    merged[change.collection] = CollectionChanges(collection: change.collection)
                    order.append(change.collection)
                }
                merged[change.collection]!.inserted += change.inserted
                merged[change.collection]!.updated += change.updated
                merged[change.collection]!.removed += change.removed
            }
        }
        guard !order.isEmpty else { return }
        let event = CommitEvent(commit: commit, changes: order.map { merged[$0]! })
        for listener in listeners { listener.yield(event) }
    }

    /// Ends every stream; called once the writer has stopped, so no commit comes after.
    func finish() {
        let listeners = observers.withLock { state in
            defer { state = nil }
            return Array((state ?? [:]).values)
        }
        for listener in listeners { listener.finish() }
    }
}
