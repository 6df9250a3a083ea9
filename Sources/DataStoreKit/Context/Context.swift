import DataStoreCore
import LMDB
import Synchronization
import DataStoreEngine

/// A unit of work over a store, as in HardCoreData: it stages adds, puts and removes for any of
/// the store's collections, reads its own staged changes over one consistent snapshot, and saves
/// them as one change set.
///
/// ```swift
/// let context = store.newContext()
/// try context.add(message, to: messages)
/// let same = try context.get(id: "42", from: messages)     // sees the staged add
/// let commit = try await context.save()                    // one change set through the writer
/// ```
///
/// A child context (``newChild()``) saves into its parent, and nothing reaches disk until the
/// root saves. Conflicts: a context remembers the version of every record it read or changed; if
/// any changed underneath it before its save commits, the save fails with
/// ``/DataStoreCore/DataStoreError/Code/conflict`` listing them, and writes nothing — unless the context was made
/// with ``/DataStoreEngine/ConflictPolicy/lastWriterWins``.
///
/// A context is safe to share between tasks; its calls run one at a time. While a root context's
/// `save()` is committing, staging into it (or saving a child into it) throws `.conflict` instead
/// of mixing new changes into the change set in flight; stage after the save returns, or in a
/// child context.
///
/// The snapshot may be taken away, never changed: the writer ends it when it must grow the map,
/// and past ``DataStore/Options/maxSnapshotAge``. Every later read that needs it then throws
/// ``/DataStoreCore/DataStoreError/Code/snapshotExpired`` until ``refresh()``; staged changes are kept and can
/// still be saved (docs/concurrency.md).
public final class Context: Sendable {
    /// What a save does when records changed underneath the context (the same on every store).
    public typealias ConflictPolicy = DataStoreEngine.ConflictPolicy

    /// A staged change to one record, encoded when it was staged.
    typealias Change = StagedChange<PreparedDocument>
    typealias Key = StagedKey

    struct State: Sendable {
        var snapshot: Snapshot?
        var work = StagedWork<PreparedDocument, CollectionTable>()
        var discarded = false
        /// Why the snapshot was taken away after it had been read (past its age cap, or to let the
        /// map grow): every read throws ``/DataStoreCore/DataStoreError/Code/snapshotExpired`` with this until
        /// `refresh()`, `discard()` or a save.
        var snapshotEnded: String?
        /// Counts the snapshots begun, so a request to yield ends only the one it was made for.
        var snapshotNumber = 0
    }

    /// The store this context reads and saves.
    public let store: DataStore
    /// The context this one saves into, or `nil` for a root context.
    public let parent: Context?
    /// What a save does on conflicts.
    public let policy: ConflictPolicy
    let state = Mutex(State())

    init(store: DataStore, parent: Context?, policy: ConflictPolicy) {
        self.store = store
        self.parent = parent
        self.policy = policy
    }

    /// A child context: it reads through this one, and its save merges into this one.
    public func newChild() -> Context {
        Context(store: store, parent: self, policy: policy)
    }

    /// Whether this context holds changes not yet saved.
    public var hasChanges: Bool { state.withLock { !$0.work.changes.isEmpty } }

    /// Drops every staged change and the snapshot; the context can be used again afresh.
    public func discard() {
        state.withLock { state in
            // A save in flight stays marked, so nothing can be staged until it ends.
            let saving = state.work.saving
            state = State()
            state.work.saving = saving
        }
    }

    /// Ends the snapshot so the next read sees the latest commits (staged changes are kept), and
    /// lets a context whose snapshot was taken away (``/DataStoreCore/DataStoreError/Code/snapshotExpired``) read again.
    public func refresh() {
        state.withLock { state in
            state.snapshot = nil
            state.snapshotEnded = nil
        }
    }
}

extension Context: StagingContext {
    package func withWork<R: Sendable, E: Error>(
        _ body: (inout StagedWork<PreparedDocument, CollectionTable>) throws(E) -> R
    ) throws(E) -> R {
        try state.withLock { state throws(E) in try body(&state.work) }
    }

    package func takeWork() -> StagedWork<PreparedDocument, CollectionTable> {
        state.withLock { state in
            defer { state = State() }
            return state.work
        }
    }
}

/// A read transaction owned by a root context, held until the context saves, discards or refreshes.
///
/// It is registered with the environment, so statistics show its age, and it yields when asked:
/// to let the map grow, or past `DataStore.Options.maxSnapshotAge` (see `Context+Snapshot.swift`).
final class Snapshot: Sendable {
    let transaction: ReadTransaction
    let began: ContinuousClock.Instant
    /// The commit it sees.
    let commit: Int

    init(_ environment: Environment, registration: Environment.ReaderRegistration) throws {
        transaction = try environment.beginRead(registering: registration)
        began = .now
        commit = transaction.snapshotID
    }
}

extension DataStore {
    /// A new root context over this store.
    public func newContext(policy: Context.ConflictPolicy = .detect) -> Context {
        Context(store: self, parent: nil, policy: policy)
    }
}
