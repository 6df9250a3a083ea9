import Synchronization

/// The records written while an index is filled from a snapshot of the records, and what each
/// record's entries were just before its first write after that snapshot.
///
/// While an index has a log, writes leave the index alone (so the build can append its sorted
/// entries, which needs the index to hold only keys below them) and note the record here; the
/// build's last step deletes the noted entries, which the snapshot gave the build, and puts the
/// entries of each record as it is then. A note whose change set is rolled back is harmless:
/// its entries are still the record's, and the last step only makes the index agree with the record.
final class IndexBuildLog: Sendable {
    /// One write of a record: the write transaction's id and the record's entry keys before it
    /// (`nil` when they could not be read: the last step then finds them by scanning the index).
    struct Note: Sendable {
        let transaction: Int
        let keysBefore: [[UInt8]]?
    }

    private struct State: Sendable {
        /// The last commit the build's snapshot sees, once it is taken.
        var snapshot: Int?
        var notes: [[UInt8]: [Note]] = [:]
    }

    private let state = Mutex(State())

    /// Whether a write in `transaction` of the record under `idKey` needs a note: not when an
    /// earlier write after the snapshot already gave the entries the snapshot holds.
    func needsNote(of idKey: [UInt8], in transaction: Int) -> Bool {
        state.withLock { state in
            guard let snapshot = state.snapshot, let notes = state.notes[idKey] else { return true }
            return !notes.contains { $0.transaction > snapshot && $0.transaction < transaction }
        }
    }

    /// Notes a write in `transaction` of the record under `idKey`, whose entries were `keysBefore`.
    func note(_ idKey: [UInt8], in transaction: Int, keysBefore: [[UInt8]]?) {
        state.withLock { state in
            let note = Note(transaction: transaction, keysBefore: keysBefore)
            guard let snapshot = state.snapshot else { return state.notes[idKey, default: []].append(note) }
            var notes = state.notes[idKey, default: []].filter { $0.transaction > snapshot }
            // A write applied again (the batch was replayed) in the same transaction notes the same entries.
            if notes.contains(where: { $0.transaction <= transaction }) { return }
            notes = [note]
            state.notes[idKey] = notes
        }
    }

    /// Records the last commit the build's snapshot sees: writes committed up to it are in the
    /// snapshot, later ones are not.
    func snapshotTaken(at commit: Int) {
        state.withLock { state in
            state.snapshot = commit
            // Notes of writes the snapshot holds are not needed (they gather while other indexes of
            // the same declaration are built).
            state.notes = state.notes.compactMapValues { notes in
                let later = notes.filter { $0.transaction > commit }
                return later.isEmpty ? nil : later
            }
        }
    }

    /// Every record written after the snapshot, with its entry keys as the snapshot had them
    /// (those its first write after the snapshot found), in no particular order.
    func writesAfterSnapshot() -> [(idKey: [UInt8], keysBefore: [[UInt8]]?)] {
        state.withLock { state in
            let snapshot = state.snapshot ?? Int.max
            return state.notes.compactMap { idKey, notes in
                let first = notes.filter { $0.transaction > snapshot }.min { $0.transaction < $1.transaction }
                return first.map { (idKey, $0.keysBefore) }
            }
        }
    }
}
