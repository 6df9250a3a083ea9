/// How a store builds an index that is not unique from its records (docs/queries.md,
/// "Declaring indexes"): how much memory its sort may hold and how much one commit appends.
struct IndexBuildSettings: Sendable {
    /// Where a build has got to, for ``pause``.
    enum Stage: Sendable, Equatable {
        /// Writes now note themselves in the build's log; the snapshot is not taken yet.
        case logStarted
        /// Every entry of the snapshot is read, and `runs` sorted runs were spilled to files, the
        /// largest holding `largestRunBytes`; none is appended yet.
        case extracted(runs: Int, largestRunBytes: Int)
        /// A batch of entries is committed (its number, from 0).
        case appended(Int)
    }

    /// The most bytes of entries (keys, values, and 24 bytes of bookkeeping each) the sort holds
    /// in memory before it spills a sorted run to a file beside the store: enough that a million
    /// documents' entries sort without spilling, which would otherwise dominate such a build.
    var memoryBound = 200 << 20
    /// About how many bytes of entries one commit appends.
    var batchBytes = 32 << 20
    /// Called at each stage and awaited before the build goes on (tests write there).
    var pause: (@Sendable (Stage) async throws -> Void)?
}
