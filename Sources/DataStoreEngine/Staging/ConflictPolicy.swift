/// What a unit of work's save does when records it read or wrote changed underneath it since.
public enum ConflictPolicy: Sendable, Hashable {
    /// Fail the save with ``/DataStoreCore/DataStoreError/Code/conflict`` (the default).
    case detect
    /// Save anyway; the last save to commit wins.
    case lastWriterWins
}
