import DataStoreCore
import LMDB
import Synchronization

/// The read transaction behind a ``CollectionSnapshot``: registered with the environment, so that
/// statistics name it and the writer can ask it to yield; it yields between batches (never while
/// a batch is being read), after which every read throws ``/DataStoreCore/DataStoreError/Code/snapshotExpired``.
final class SnapshotHolder: Sendable {
    private struct State: Sendable {
        var snapshot: Snapshot?
        /// Why the snapshot was taken away, for the error every later read throws.
        var ended: String?
        /// The read closure returned: the snapshot must not be used any more.
        var closed = false
        /// An error met by a cursor's `for`-`in` iteration, which cannot throw; the read closure
        /// throws it when it returns.
        var deferredError: DataStoreError?
    }

    private let state = Mutex(State())
    private let label: String

    init(store: DataStore, label: String) throws {
        self.label = label
        let registration = Environment.ReaderRegistration(label: label, maxAge: store.maxSnapshotAge) {
            [weak self] reason in self?.yield(reason, store: store)
        }
        let snapshot = try Snapshot(store.environment, registration: registration)
        state.withLock { $0.snapshot = snapshot }
    }

    /// The commit the snapshot sees.
    var commit: Int { state.withLock { $0.snapshot?.commit ?? 0 } }

    /// Runs `body` over the snapshot.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/closed`` after the read closure returned;
    ///   ``/DataStoreCore/DataStoreError/Code/snapshotExpired`` once the snapshot yielded.
    func withTransaction<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        try state.withLock { state in
            if state.closed {
                throw DataStoreError(.closed, "\(label) was used after its read closure returned")
            }
            if let ended = state.ended { throw DataStoreError(.snapshotExpired, ended) }
            guard let snapshot = state.snapshot else { throw DataStoreError(.closed, "\(label) has ended") }
            return try body(snapshot.transaction)
        }
    }

    /// Keeps the first error a `for`-`in` loop met, for the read closure to throw.
    func deferError(_ error: any Error) {
        let wrapped =
            error as? DataStoreError ?? DataStoreError(.storage, "\(label) failed: \(error)", underlying: error)
        state.withLock { state in
            if state.deferredError == nil { state.deferredError = wrapped }
        }
    }

    /// Ends the snapshot when the read closure returns, and gives back the error a loop deferred.
    func close() -> DataStoreError? {
        state.withLock { state in
            state.closed = true
            state.snapshot = nil
            return state.deferredError
        }
    }

    /// Ends the snapshot if no batch is being read now (the writer asks again otherwise).
    private func yield(_ reason: Environment.YieldReason, store: DataStore) {
        _ = state.withLockIfAvailable { state in
            guard let snapshot = state.snapshot else { return }
            let why =
                switch reason {
                case .ageLimit(let limit):
                    "it passed DataStore.Options.maxSnapshotAge (\(Context.seconds(limit)) s)"
                case .mapResize(let bytes):
                    "the writer needed to grow the map of \(store.path) to \(bytes) bytes, which needs every read "
                        + "in this process to end"
                }
            state.ended =
                "\(label) (at commit \(snapshot.commit)) was ended \(Context.seconds(ContinuousClock.now - snapshot.began)) "
                + "s after it opened: \(why); walk long results with stream(params:options:) or pages, each page "
                + "its own short read"
            state.snapshot = nil
        }
    }
}
