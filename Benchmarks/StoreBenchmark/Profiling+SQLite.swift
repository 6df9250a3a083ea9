// `--profile sqlite-get`, `sqlite-range`, `sqlite-pair`, `sqlite-scan`: the peer's side of the read
// workloads alone in the profile loop, so that DataStoreKit's instruction counts have SQLite's beside
// them (Benchmarks/instructions.sh).
import Foundation

extension BenchmarkRun {
    /// Loads SQLite alone, then loops over one of its read workloads (`sqlite-get`, `sqlite-range`,
    /// `sqlite-pair`, `sqlite-scan`): the peer's own instruction count beside the raw floor's.
    func profileSQLite(_ workload: String, seconds: Double) throws {
        let (sqlite, messages, ids, starts, pairs) = (
            self.sqlite, dataset.messages, dataset.lookupIDs, dataset.rangeStarts, dataset.pairs
        )
        progress("profile: loading SQLite alone…")
        for start in stride(from: 0, to: messages.count, by: 1_000) {
            try sqlite.insert(messages[start..<min(start + 1_000, messages.count)])
        }
        try sqlite.checkpoint()
        if workload == "sqlite-pair" { try sqlite.buildPairIndex() }
        let operation: (Int) throws -> UInt64
        switch workload {
        case "sqlite-get": operation = { fold([try sqlite.get(id: ids[$0 % ids.count])], full: false).checksum }
        case "sqlite-range":
            operation = { fold(try sqlite.created(since: starts[$0 % starts.count]), full: false).checksum }
        case "sqlite-pair":
            operation = { index in
                let pair = pairs[index % pairs.count]
                return fold(try sqlite.messages(from: pair.from, to: pair.to), full: false).checksum
            }
        case "sqlite-scan":
            let type = dataset.scanType
            operation = { _ in fold(try sqlite.messages(ofType: type), full: false).checksum }
        default:
            throw BenchmarkFailure("--profile \(workload): one of sqlite-get, sqlite-range, sqlite-pair, sqlite-scan")
        }
        progress("profile: SQLite \(workload) for \(fixed(seconds, 0)) s (profileLoop)…")
        let cpu = Clock.threadCPU()
        let operations = try profiled(seconds: seconds, operations: configuration.profileOperations, operation)
        progress(
            "  \(operations) operations, \(fixed(Double(Clock.threadCPU() - cpu) / Double(operations), 0)) ns CPU each")
    }
}
