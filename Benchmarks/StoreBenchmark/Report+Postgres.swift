// The PostgreSQL section of the text report.

extension Report {
    func printPostgres() {
        print("PostgreSQL: \(postgres.status)")
        guard !postgres.rows.isEmpty || !postgres.eventCommits.isEmpty else { return }
        if let roundTrip = postgres.roundTrip {
            print(
                "\(grouped(Double(postgres.size))) messages"
                    + (postgres.size < size
                        ? " (fewer than the LMDB rows' \(grouped(Double(size))), to keep the run short)" : "")
                    + "; SELECT 1 round trip through libpq: p50 \(fixed(roundTrip.p50Microseconds, 0)) µs, "
                    + "p99 \(fixed(roundTrip.p99Microseconds, 0)) µs")
        }
        print("")
        printPostgresRows()
        print("")
        printCommits(
            postgres.eventCommits,
            title: "group commit into a fresh event log on PostgreSQL (ids in time order, one index on created_ts): "
                + "each save is one add(object:) (libpq: one INSERT, autocommit), every saver saves in a loop",
            ratios: postgresCommitRatios)
        for check in postgres.checks { print("  check: \(check)") }
        for (name, plan) in postgres.plans.sorted(by: { $0.key < $1.key }) { print("  plan, \(name): \(plan)") }
    }

    private func printPostgresRows() {
        let rows = postgres.rows
        let nameWidth = max(34, rows.map(\.workload.count).max() ?? 0)
        let header =
            "workload".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
            + "unit".padding(toLength: 10, withPad: " ", startingAt: 0) + pad("DSK on PG", 12) + pad("libpq", 12)
            + pad("DSK/libpq", 10) + "  goal     met " + pad("µs DSK", 9) + pad("µs libpq", 9) + pad("unprep.", 9)
            + pad("SELECT 1", 9)
            + pad("libpq RTs", 10) + pad("CPU µs DSK/libpq", 18) + "  same results"
        print(header)
        print(String(repeating: "-", count: header.count + 4))
        for row in rows {
            let met = row.goalMet.map { $0 ? "yes" : "NO" } ?? ""
            let isRead = row.roundTripMicroseconds != nil
            print(
                row.workload.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
                    + row.unit.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + pad(grouped(row.dataStoreKit), 12) + pad(grouped(row.libpq), 12)
                    + pad(fixed(row.versusLibpq, 2), 10) + "  "
                    + (row.goal.map { "≥\(fixed($0, 1))×" } ?? "").padding(toLength: 7, withPad: " ", startingAt: 0)
                    + "  " + met.padding(toLength: 4, withPad: " ", startingAt: 0)
                    + pad(isRead ? fixed(1e6 / row.dataStoreKit, 0) : "", 9)
                    + pad(isRead ? fixed(1e6 / row.libpq, 0) : "", 9)
                    + pad(row.libpqUnprepared.map { fixed(1e6 / $0, 0) } ?? "", 9)
                    + pad(row.roundTripMicroseconds.map { fixed($0, 0) } ?? "", 9)
                    + pad(row.floorInRoundTrips.map { fixed($0, 1) } ?? "", 10)
                    + pad(row.clientCPUMicroseconds.map { $0.map { fixed($0, 0) }.joined(separator: " / ") } ?? "", 18)
                    + "  " + (row.agree ? "ok (\(row.results[0]))" : "MISMATCH \(row.results)"))
        }
        print(
            "(reads: operations per second of wall-clock time, median of 7 alternating rounds; µs per operation; "
                + "unprep.: libpq's statement sent unprepared, as the store sends its own; SELECT 1: its µs in the same rounds; libpq RTs: the floor's time in round trips, near 1 = the "
                + "round trip is its whole cost; CPU: the client process's CPU per operation)")
    }

    /// DataStoreKit on PostgreSQL against one transaction per save, at one saver count.
    func postgresCommitRatios(_ tasks: Int) -> String? {
        func rate(_ backend: String) -> Double? {
            postgres.eventCommits.first { $0.tasks == tasks && $0.backend == backend }?.commitsPerSecond
        }
        guard let store = rate(PostgresCommitBackend.dataStoreKit),
            let single = rate(PostgresCommitBackend.dataStoreKitOnePerSave),
            let floor = rate(PostgresCommitBackend.libpqOnePerSave)
        else { return nil }
        var line =
            "       DSK on PG ÷ its 1 txn/save: \(fixed(store / single, 2))×   "
            + "÷ libpq 1 txn/save on \(tasks) connections: \(fixed(store / floor, 2))×"
        if tasks == 64 {
            line +=
                "   goal ≥\(fixed(PostgresSection.commitGoal, 0))×: "
                + (store / single >= PostgresSection.commitGoal ? "met" : "NOT MET")
        }
        return line
    }
}
