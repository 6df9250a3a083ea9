// `--profile raw-get`, `raw-range`, `raw-pair-compound`, `raw-empty`, `raw-scan`: the floor of the read workloads,
// the raw LMDB backend's side alone in the same profile loop, so that an instruction count of
// DataStoreKit's `get`, `range`, `pair-compound`, `empty` and `scan` has the C API's own count beside it
// (Benchmarks/instructions.sh); `sqlite-get` … `sqlite-scan` are in Profiling+SQLite.swift.
import Foundation

extension BenchmarkRun {
    /// The raw LMDB and SQLite read workloads the profile loop runs.
    static let rawReadProfiles = [
        "raw-get", "raw-range", "raw-pair-compound", "raw-empty", "raw-scan", "sqlite-get", "sqlite-range",
        "sqlite-pair",
        "sqlite-scan"
    ]

    /// Loads the raw backend alone (1 000 messages per transaction, the compound index built after),
    /// then loops over one of ``rawReadProfiles``: what `get`, `range`, `pair-compound`, `empty` and `scan` do,
    /// in the raw backend's hand-written C-API calls and decoding (the `sqlite-` ones in SQLite's).
    func profileRaw(_ workload: String, seconds: Double) throws {
        let (raw, ids, starts, pairs) = (self.raw, dataset.lookupIDs, dataset.rangeStarts, dataset.pairs)
        if workload.hasPrefix("sqlite-") { return try profileSQLite(workload, seconds: seconds) }
        try loadRawAlone(pairIndex: workload.hasPrefix("raw-pair") || workload == "raw-empty")
        // One closure value rather than a literal per workload: the compiler would otherwise
        // specialize the loop per literal and merge the copies behind a tail call, which moves the
        // work outside the function callgrind's toggle names.
        let operation: (Int) throws -> UInt64
        switch workload {
        case "raw-get":
            operation = { fold([try raw.get(id: ids[$0 % ids.count])], full: false).checksum }
        case "raw-range":
            operation = { fold(try raw.created(since: starts[$0 % starts.count], limit: 100), full: false).checksum }
        case "raw-pair-compound":
            operation = { index in
                let pair = pairs[index % pairs.count]
                return fold(try raw.messages(from: pair.from, to: pair.to, compound: true), full: false).checksum
            }
        case "raw-empty":
            // The same seek as `empty`: a sender and recipient that no document has.
            operation = { index in
                fold(try raw.messages(from: "nobody-\(index & 7)", to: "nobody", compound: true), full: false).checksum
            }
        case "raw-scan":
            let type = dataset.scanType
            operation = { _ in fold(try raw.messages(ofType: type), full: false).checksum }
        default:
            throw BenchmarkFailure("--profile \(workload): one of \(Self.rawReadProfiles.joined(separator: ", "))")
        }
        progress("profile: raw LMDB \(workload) for \(fixed(seconds, 0)) s (profileLoop)…")
        let cpu = Clock.threadCPU()
        let operations = try profiled(seconds: seconds, operations: configuration.profileOperations, operation)
        progress(
            "  \(operations) operations, \(fixed(Double(Clock.threadCPU() - cpu) / Double(operations), 0)) ns CPU each")
    }

    /// Loads the raw backend alone, 1 000 messages per transaction, and builds its compound index
    /// after when asked.
    func loadRawAlone(pairIndex: Bool) throws {
        progress("profile: loading raw LMDB alone…")
        let (raw, messages) = (self.raw, dataset.messages)
        for start in stride(from: 0, to: messages.count, by: 1_000) {
            let batch = messages[start..<min(start + 1_000, messages.count)]
            try raw.write { transaction in for message in batch { try raw.insert(message, in: transaction) } }
        }
        if pairIndex { try raw.buildPairIndex() }
    }
}
