// What the PostgreSQL part of a run found, or why it did not run.

struct PostgresSection: Encodable, Sendable {
    /// One line: the server and its settings, or why the rows were skipped.
    var status: String
    /// Messages in the PostgreSQL rows' dataset.
    var size = 0
    /// `SELECT 1` latencies through libpq, measured before the workloads.
    var roundTrip: LatencyStats?
    var rows: [PostgresRow] = []
    /// Group commit into a fresh event log on the server.
    var eventCommits: [CommitRow] = []
    /// Units of work on one hot record against as many on records of their own.
    var contention: [ContentionRow] = []
    var checks: [String] = []
    /// Plans: the store's planner and the server's EXPLAIN.
    var plans: [String: String] = [:]

    /// The least DataStoreKit ÷ one transaction per save at 64 savers the issue asks for.
    static let commitGoal = 5.0
}
