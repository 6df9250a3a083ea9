import DataStoreCore
public import DataStoreEngine
import Synchronization

/// A unit of work over a ``PostgresStore``, with the shape and semantics of DataStoreKit's
/// `Context`: it stages adds, puts and removes for any of the store's collections, reads its own
/// staged changes over one consistent snapshot, and saves them as one change set.
///
/// ```swift
/// let context = store.newContext()
/// try context.add(message, to: messages)
/// let same = try context.get(id: "42", from: messages)     // sees the staged add
/// let commit = try await context.save()                    // one change set through the writer
/// ```
///
/// The snapshot is a `REPEATABLE READ` transaction on a connection the root context holds from
/// its first read until it saves, discards or refreshes. A child context (``newChild()``) saves
/// into its parent; nothing reaches the server until the root saves. With
/// `ConflictPolicy.detect` a save fails with
/// ``/DataStoreCore/DataStoreError/Code/conflict`` listing every record it read or changed that
/// changed underneath it, and writes nothing.
///
/// A context is safe to share between tasks; its calls run one at a time. While a root context's
/// `save()` is committing, staging into it (or saving a child into it) throws `.conflict`.
public final class PostgresContext: Sendable {
    /// A staged change to one record, encoded when it was staged (the LMDB context's kind).
    typealias Change = StagedChange<PreparedRow>
    typealias Key = StagedKey

    struct State: Sendable {
        var snapshot: ContextSnapshot?
        var work = StagedWork<PreparedRow, TableLayout>()
        /// Why the snapshot was lost after it had been read (its connection went away, or a
        /// refused statement could not be rolled back): reads throw `.snapshotExpired` with this
        /// until `refresh()`, `discard()` or a save.
        var snapshotEnded: String?
    }

    /// The store this context reads and saves.
    public let store: PostgresStore
    /// The context this one saves into, or `nil` for a root context.
    public let parent: PostgresContext?
    /// What a save does on conflicts.
    public let policy: ConflictPolicy
    let state = Mutex(State())

    init(store: PostgresStore, parent: PostgresContext?, policy: ConflictPolicy) {
        self.store = store
        self.parent = parent
        self.policy = policy
    }

    deinit {
        let snapshot = state.withLock { $0.snapshot.take() }
        if let snapshot { store.pool.checkIn(snapshot.connection) }
    }

    /// A child context: it reads through this one, and its save merges into this one.
    public func newChild() -> PostgresContext {
        PostgresContext(store: store, parent: self, policy: policy)
    }

    /// Whether this context holds changes not yet saved.
    public var hasChanges: Bool { state.withLock { !$0.work.changes.isEmpty } }

    /// Drops every staged change and the snapshot; the context can be used again afresh.
    public func discard() {
        let snapshot = state.withLock { state in
            let saving = state.work.saving
            let snapshot = state.snapshot.take()
            state = State()
            state.work.saving = saving
            return snapshot
        }
        end(snapshot)
    }

    /// Ends the snapshot so the next read sees the latest commits (staged changes are kept), and
    /// lets a context whose snapshot was lost (`.snapshotExpired`) read again.
    public func refresh() {
        let snapshot = state.withLock { state in
            state.snapshotEnded = nil
            return state.snapshot.take()
        }
        end(snapshot)
    }

    /// Ends a snapshot's transaction and gives its connection back to the pool.
    func end(_ snapshot: ContextSnapshot?) {
        if let snapshot { store.pool.checkIn(snapshot.connection) }
    }
}

extension PostgresContext: StagingContext {
    package func withWork<R: Sendable, E: Error>(
        _ body: (inout StagedWork<PreparedRow, TableLayout>) throws(E) -> R
    ) throws(E) -> R {
        try state.withLock { state throws(E) in try body(&state.work) }
    }

    package func takeWork() -> StagedWork<PreparedRow, TableLayout> {
        state.withLock { state in
            defer { state = State() }
            return state.work
        }
    }
}

extension PostgresStore {
    /// A new root context over this store.
    public func newContext(policy: ConflictPolicy = .detect) -> PostgresContext {
        PostgresContext(store: self, parent: nil, policy: policy)
    }
}
