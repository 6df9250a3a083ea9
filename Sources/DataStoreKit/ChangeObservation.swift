public import DataStoreCore
import Synchronization

/// What one committed write transaction changed, for observers.
public struct CommitEvent: Sendable, Hashable {
    /// The commit, in commit order.
    public let commit: CommitID
    /// The changes, one entry per collection touched.
    public let changes: [CollectionChanges]
}

/// The ids one commit inserted, updated and removed in one collection.
public struct CollectionChanges: Sendable, Hashable {
    /// The collection's name.
    public var collection: String
    /// Ids stored that were absent before.
    public var inserted: [Value] = []
    /// Ids whose stored object was replaced.
    public var updated: [Value] = []
    /// Ids removed.
    public var removed: [Value] = []

    /// Empty changes for `collection`.
    public init(collection: String) { self.collection = collection }
}

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
            for change in report.changes where !(change.inserted.isEmpty && change.updated.isEmpty && change.removed.isEmpty) {
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

extension DataStore {
    /// Every commit from now on, in commit order, with the ids it inserted, updated and removed.
    /// The stream ends when the store closes, after the events of the commits queued before.
    ///
    /// The writer never waits for an observer: events buffer until read.
    public func changes() -> AsyncStream<CommitEvent> {
        changeHub.subscribe()
    }

    /// What the writer has done so far: batches, change sets per batch, commit time.
    public var writerMetrics: WriterMetrics { writer.metrics }
}
