import DataStoreCore
import LMDB

extension Context {
    /// Begins the root's snapshot, registered so that it yields when the map must grow or it
    /// passes the store's `maxSnapshotAge`. Called under the root's state lock.
    func beginSnapshot(_ state: inout State) throws -> Snapshot {
        state.snapshotNumber += 1
        let number = state.snapshotNumber
        let registration = Environment.ReaderRegistration(label: "a Context's snapshot", maxAge: store.maxSnapshotAge) {
            [weak self] reason in self?.yieldSnapshot(number, reason)
        }
        return try Snapshot(store.environment, registration: registration)
    }

    /// Ends snapshot `number` if it is still the current one and no read is using it now (the
    /// asker tries again later otherwise). Its reads cannot be redone on another snapshot without
    /// the context's view changing under them, so every later read throws until `refresh()`.
    func yieldSnapshot(_ number: Int, _ reason: Environment.YieldReason) {
        _ = state.withLockIfAvailable { state in
            guard state.snapshotNumber == number, let snapshot = state.snapshot else { return }
            state.snapshotEnded = Self.endedMessage(snapshot, reason, store: store)
            state.snapshot = nil
        }
    }

    /// Ends a snapshot past the store's `maxSnapshotAge` (the writer usually ended it already).
    func checkSnapshotAge(_ state: inout State) throws {
        if let snapshot = state.snapshot, let limit = store.maxSnapshotAge, ContinuousClock.now - snapshot.began > limit
        {
            state.snapshotEnded = Self.endedMessage(snapshot, .ageLimit(limit), store: store)
            state.snapshot = nil
        }
        if let ended = state.snapshotEnded { throw DataStoreError(.snapshotExpired, ended) }
    }

    /// "this context's snapshot (at commit 7) was ended 60.1 s after it opened: it passed
    /// DataStore.Options.maxSnapshotAge (60.0 s) …".
    static func endedMessage(_ snapshot: Snapshot, _ reason: Environment.YieldReason, store: DataStore) -> String {
        let age = ContinuousClock.now - snapshot.began
        let why =
            switch reason {
            case .ageLimit(let limit):
                "it passed DataStore.Options.maxSnapshotAge (\(seconds(limit)) s), since an old snapshot keeps the pages "
                    + "written after it from being reused"
            case .mapResize(let bytes):
                "the writer needed to grow the map of \(store.path) to \(bytes) bytes, which needs every read in this "
                    + "process to end"
            }
        return
            "this context's snapshot (at commit \(snapshot.commit)) was ended \(seconds(age)) s after it opened: \(why); "
            + "its reads cannot go on over another snapshot without its view changing under them: call refresh() to "
            + "read the latest commits (staged changes and conflict checks are kept) or discard()"
    }

    /// A duration in seconds with one decimal.
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return "\((value * 10).rounded() / 10)"
    }
}
