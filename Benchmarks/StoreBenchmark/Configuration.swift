// Command-line flags.
import Foundation

struct Configuration: Sendable {
    static let workloads = [
        "get", "range", "covering", "pair", "scan", "build", "updates", "commit", "events", "observers", "compact",
        "contention"
    ]

    var size = 100_000
    var sizeName = "quick"
    var json = false
    var only: Set<String> = Set(workloads)
    var durableCommits: Int?
    var taskCounts = [1, 4, 16, 64]
    var directory = NSTemporaryDirectory() + "storebench-\(getpid())"
    var keep = false
    var seed: UInt64 = 0x5EED_0001
    /// `--profile WORKLOAD`: load DataStoreKit alone and loop over one workload (for perf/callgrind).
    var profile: String?
    var profileSeconds = 20.0
    /// `--profile-operations N`: the profile loop runs exactly N operations instead of for a time.
    var profileOperations: Int?
    /// `--profile-pool N`: events a save profile generates, however many it saves.
    var profilePool: Int?
    /// `--no-postgres`: skip the PostgreSQL rows even when `PGHOST` names a server.
    var postgres = true
    /// `--only-postgres`: only the PostgreSQL rows (the `--only` workloads among them), no LMDB or SQLite ones.
    var onlyPostgres = false
    /// `--postgres-reads MODE`: how the PostgreSQL store reads (`default`, `threads`, `awaited`,
    /// `poll=MICROSECONDS`; PostgresBackend.options).
    var postgresReads = "default"
    /// `--postgres-size N`: messages in the PostgreSQL rows (default the run's size, at most 100 000).
    var postgresSize: Int?
    /// `--json-file PATH`: also write the report as JSON to PATH (the charts are drawn from it).
    var jsonFile: String?

    /// The PostgreSQL rows' dataset size: the whole quick size, a tenth of the full one.
    var postgresCount: Int { postgresSize ?? min(size, 100_000) }
    /// The server the PostgreSQL rows use, from `PGHOST` (and the other `PG*` variables), or `nil`.
    var postgresServer: String? {
        guard postgres, let host = ProcessInfo.processInfo.environment["PGHOST"], !host.isEmpty else { return nil }
        return host + (ProcessInfo.processInfo.environment["PGPORT"].map { ":" + $0 } ?? "")
    }

    /// The most saves per group-commit configuration (the pool of new documents each one gets).
    var commitsPerConfiguration: Int { durableCommits ?? 16_384 }
    /// How long each group-commit configuration runs at most: savers stop at this deadline or
    /// when the pool is used up, whichever comes first. Bounds the slow one-transaction-per-save
    /// backends on a slow disk and gives the fast ones enough saves on a fast one.
    var durableSeconds: Double?
    var secondsPerConfiguration: Double { durableSeconds ?? (size >= 1_000_000 ? 3 : 2) }

    static let usage = """
        usage: StoreBenchmark [--size quick|full|N] [--only WORKLOAD[,WORKLOAD…]] [--durable-commits N]
                              [--durable-seconds S] [--tasks 1,4,16,64] [--dir PATH] [--keep] [--json]
                              [--json-file PATH] [--no-postgres] [--only-postgres] [--postgres-reads MODE]
                              [--postgres-size N]

          --size             quick = 100 000 messages (make run), full = 1 000 000 (make bench), or a count
          --only             run only these workloads after the bulk load (which always runs, as does the
                             compound index build, "build"): \(workloads.joined(separator: ", "))
          --durable-commits  the most saves per group-commit configuration (default 16 384)
          --durable-seconds  the longest a group-commit configuration runs (default 2 s quick, 3 s full)
          --tasks            concurrent savers for the group-commit workload (default 1,4,16,64)
          --dir              where the three stores are created (default a fresh directory under /tmp)
          --keep             keep the stores afterwards
          --json             print the report as JSON on stdout (progress still goes to stderr)
          --json-file PATH   also write the JSON report to PATH (Benchmarks/charts.sh draws it)
          --no-postgres      skip the PostgreSQL rows (they run when PGHOST names a server: make run
                             starts a throwaway one, Tests/Postgres/with-cluster.sh)
          --only-postgres    only the PostgreSQL rows (with --only, only those workloads among them)
          --postgres-reads MODE  how the PostgreSQL store reads: default (its defaults), threads (every
                             read on a reader thread), awaited (on the event thread, no wait on the
                             caller's), poll=MICROSECONDS (the caller waits that long first)
          --postgres-size N  messages in the PostgreSQL rows (default the size, at most 100 000)
          --profile W        load DataStoreKit alone, then loop over one of its workloads for a profiler:
                             load, get, get-codable, range, range-codable, pair, pair-compound,
                             pair-compound-codable (the same through Codable), empty (a
                             compound query that matches nothing), pair-compound-prepared and
                             empty-prepared (the same through a prepared query), scan, range-covering (the range
                             through a covering index), commit (64 tasks), events (the event log alone,
                             64 tasks, fresh store); events1, events4 (a fixed count of saves from
                             1 or 4 savers, relaxed durability: Benchmarks/instructions.sh), and the
                             same through raw LMDB: raw-events1, raw-events4 (the coalescer),
                             raw-single1 (one transaction per save); commit1, raw-commit1 (the
                             messages' single durable commits into the loaded data, with the bytes
                             and write calls per commit, DataStoreKit or raw LMDB); raw-get, raw-pair-compound,
                             raw-range, raw-empty, raw-scan (the raw LMDB floor of get, range, pair-compound, empty and
                             scan, raw LMDB loaded alone); sqlite-get, sqlite-range, sqlite-pair,
                             sqlite-scan (SQLite's side, SQLite loaded alone); build (the compound index built
                             --profile-operations times over the loaded data, dropped between builds);
                             against the server PG* names, one side of a PostgreSQL read: pg-get, pg-range,
                             pg-pair, pg-pair-compound, pg-scan (DataStoreKit) and libpq-get … libpq-scan
                             (the floor), in a database loaded with that side alone (Benchmarks/pg-instructions.sh)
          --profile-seconds  how long the --profile loop runs (default 20)
          --profile-operations N  run the --profile loop exactly N times (for instruction counts)
          --profile-pool N   events a save profile generates first, whatever it saves (default the count)
        """

    static func parse(_ arguments: [String]) throws -> Configuration {
        var configuration = Configuration()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw BenchmarkFailure("\(flag) needs a value\n\(usage)") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--size":
                let size = try value(flag)
                switch size {
                case "quick": configuration.size = 100_000
                case "full": configuration.size = 1_000_000
                default:
                    guard let count = Int(size), count >= 1_000 else {
                        throw BenchmarkFailure("--size \(size): quick, full or a count ≥ 1000")
                    }
                    configuration.size = count
                }
                configuration.sizeName = size
            case "--only":
                let names = try value(flag).split(separator: ",").map(String.init)
                for name in names where !workloads.contains(name) {
                    throw BenchmarkFailure("--only \(name): not a workload (\(workloads.joined(separator: ", ")))")
                }
                configuration.only = Set(names)
            case "--durable-commits":
                guard let count = Int(try value(flag)), count > 0 else {
                    throw BenchmarkFailure("--durable-commits needs a positive count")
                }
                configuration.durableCommits = count
            case "--durable-seconds":
                guard let seconds = Double(try value(flag)), seconds > 0 else {
                    throw BenchmarkFailure("--durable-seconds needs a positive number")
                }
                configuration.durableSeconds = seconds
            case "--tasks":
                let counts = try value(flag).split(separator: ",").compactMap { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else {
                    throw BenchmarkFailure("--tasks needs counts like 1,4,16,64")
                }
                configuration.taskCounts = counts
            case "--dir": configuration.directory = try value(flag)
            case "--keep": configuration.keep = true
            case "--json": configuration.json = true
            case "--json-file": configuration.jsonFile = try value(flag)
            case "--no-postgres": configuration.postgres = false
            case "--only-postgres": configuration.onlyPostgres = true
            case "--postgres-reads": configuration.postgresReads = try value(flag)
            case "--postgres-size":
                guard let count = Int(try value(flag)), count >= 1_000 else {
                    throw BenchmarkFailure("--postgres-size needs a count ≥ 1000")
                }
                configuration.postgresSize = count
            case "--seed":
                guard let seed = UInt64(try value(flag)) else { throw BenchmarkFailure("--seed needs a number") }
                configuration.seed = seed
            case "--profile": configuration.profile = try value(flag)
            case "--profile-operations":
                guard let count = Int(try value(flag)), count > 0 else {
                    throw BenchmarkFailure("--profile-operations needs a positive count")
                }
                configuration.profileOperations = count
            case "--profile-pool":
                guard let count = Int(try value(flag)), count > 0 else {
                    throw BenchmarkFailure("--profile-pool needs a positive count")
                }
                configuration.profilePool = count
            case "--profile-seconds":
                guard let seconds = Double(try value(flag)), seconds > 0 else {
                    throw BenchmarkFailure("--profile-seconds needs a number")
                }
                configuration.profileSeconds = seconds
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                throw BenchmarkFailure("unknown flag \(flag)\n\(usage)")
            }
        }
        return configuration
    }

    func runs(_ workload: String) -> Bool { only.contains(workload) }
}

/// Progress, on stderr so that `--json` output stays clean.
func progress(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
