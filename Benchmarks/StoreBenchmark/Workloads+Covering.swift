// The covering index: a second DataStoreKit store whose created_ts index carries the documents,
// loaded with the same data, read with the same range queries, and updated with the same changes.
import DataStoreCore
import DataStoreKit

extension BenchmarkRun {
    /// Loads the dataset into the covering store as the plain store was loaded; returns docs/s.
    func coveringBulkLoad(_ covering: DataStoreKitBackend, _ batches: [ArraySlice<Message>]) async throws -> Double {
        progress("bulk load, DataStoreKit with a covering created_ts index: \(batches.count) durable transactions…")
        let start = Clock.wall()
        for batch in batches { try await covering.add(batch) }
        let rate = Double(dataset.messages.count) / (Double(Clock.wall() - start) / 1e9)
        progress("  \(grouped(rate)) docs/s")
        return rate
    }

    /// `created_ts >= X limit 100` through the covering index, beside raw LMDB and SQLite.
    func coveringRange() throws {
        guard let covering else { return }
        let starts = dataset.rangeStarts
        report.plans["created_ts >= X limit 100, covering index (DataStoreKit)"] = covering.explain(
            ["created_ts >=": .double(starts[0])], ["limit": 100])
        try read(
            "created_ts >= X limit 100 → objects (covering index)", unit: "queries/s", inputs: starts.count,
            perSample: 500, goal: Goal(minimumVersusRaw: nil, minimumVersusSQLite: 2),
            store: { try covering.created(since: starts[$0], codable: $1) },
            raw: { try raw.created(since: starts[$0], limit: 100) },
            sqlite: { try sqlite.created(since: starts[$0]) })
    }
}
