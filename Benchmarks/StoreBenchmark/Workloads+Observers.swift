// What the change feed costs the writer, and what live observers cost it: the event log's group
// commit with the feed on and off (1 and 64 savers, alternating rounds in one run), then at 64
// savers with 0, 100 and 1 000 observers of queries on another collection, while one more
// observer's refresh latency (commit acknowledged → results delivered) is sampled by a pinger.
import DataStoreCore
import DataStoreKit
import Foundation

extension BenchmarkRun {
    func observerCommits() async throws {
        let directory = configuration.directory + "/observers"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let seconds = configuration.secondsPerConfiguration / 2
        for tasks in [1, 64] {
            var rates: [Bool: [Double]] = [true: [], false: []]
            var totals: [Bool: (saves: Int, nanoseconds: UInt64)] = [true: (0, 0), false: (0, 0)]
            var cpu: [Bool: CPUUsage] = [true: CPUUsage(), false: CPUUsage()]
            for round in 0..<Self.feedRounds {
                // Each setting goes first in every other round: the disk's speed drifts.
                for feed in round % 2 == 0 ? [true, false] : [false, true] {
                    let path = directory + "/feed-\(feed)-\(tasks)-\(round)"
                    let (store, events) = try await Self.openObservedStore(path: path, feed: feed)
                    let pool = newEvents(tasks: tasks, perTask: 100_000 / tasks, tag: "f\(tasks)")
                    let before = CPUUsage.now(writerThreads: Self.storeWriterThreads)
                    let result = try await saveInTasks(
                        tasks, pool, perTask: 100_000 / tasks, until: Clock.wall() + UInt64(seconds * 1e9)
                    ) { try await Self.saveInContext($0, store: store, events: events) }
                    cpu[feed]! += CPUUsage.now(writerThreads: Self.storeWriterThreads) - before
                    store.close()
                    rates[feed]!.append(Double(result.latencies.count) / (Double(result.nanoseconds) / 1e9))
                    totals[feed]!.saves += result.latencies.count
                    totals[feed]!.nanoseconds += result.nanoseconds
                }
            }
            let on = Double(totals[true]!.saves) / (Double(totals[true]!.nanoseconds) / 1e9)
            let off = Double(totals[false]!.saves) / (Double(totals[false]!.nanoseconds) / 1e9)
            report.notes.append(
                "change feed cost, event log at \(tasks) savers: feed on \(fixed(on, 0)) saves/s, off \(fixed(off, 0)) "
                    + "saves/s (on ÷ off \(fixed(on / off, 2)); rounds on \(rates[true]!.map { fixed($0, 0) }), "
                    + "off \(rates[false]!.map { fixed($0, 0) })); CPU per save, process / writer thread: on "
                    + cpu[true]!.perSave(totals[true]!.saves) + ", off " + cpu[false]!.perSave(totals[false]!.saves))
        }
        var baseline = 0.0
        for observers in [0, 100, 1_000] {
            let (rate, latency, upper) = try await observedRun(
                path: directory + "/observers-\(observers)", observers: observers, seconds: seconds * 2)
            if observers == 0 { baseline = rate }
            report.notes.append(
                "observers, event log at 64 savers with \(observers) observers of another collection: "
                    + "\(fixed(rate, 0)) saves/s (\(fixed(rate / baseline, 2))× none); refresh latency of one more "
                    + "observer, save acknowledged → results delivered (0 when delivered first): "
                    + "p50 \(fixed(latency.p50Microseconds, 0)) µs, p99 \(fixed(latency.p99Microseconds, 0)) µs; save begun → "
                    + "delivered: p50 \(fixed(upper.p50Microseconds, 0)) µs, p99 \(fixed(upper.p99Microseconds, 0)) µs "
                    + "(\(latency.count) pings)")
        }
    }

    /// 64 savers for `seconds` while `observers` observe unrelated queries and a pinger samples
    /// one observer's refresh latency: saves per second, and the latencies from each ping's
    /// acknowledgement and from its save's start.
    private func observedRun(path: String, observers: Int, seconds: Double) async throws
        -> (Double, LatencyStats, LatencyStats)
    {
        let (store, events) = try await Self.openObservedStore(path: path, feed: true)
        defer { store.close() }
        let others: StoreCollection<Message> = try await store.collection("others", mapping: .record(idField: "id"))
        let pings: StoreCollection<Message> = try await store.collection("pings", mapping: .record(idField: "id"))
        let (started, starts) = AsyncStream.makeStream(of: Void.self)
        var watchers: [Task<Void, any Error>] = []
        for index in 0..<observers {
            let observation = try others.observe(params: ["from_user_key": .string("u\(index)")], options: nil)
            watchers.append(
                Task.detached {
                    var first = true
                    for try await _ in observation where first {
                        first = false
                        starts.yield()
                    }
                })
        }
        var waiting = started.makeAsyncIterator()
        for _ in 0..<observers { await waiting.next() }
        let (delivered, deliveries) = AsyncStream.makeStream(of: (String, UInt64).self)
        let pingWatcher = Task.detached {
            for try await latest in try pings.observe(params: nil, options: ["sort": "-created_ts", "limit": 1]) {
                if let id = latest.first?.id { deliveries.yield((id, Clock.wall())) }
            }
        }
        let deadline = Clock.wall() + UInt64(seconds * 1e9)
        let pinger = Task {
            var latencies: [UInt64] = []
            var fromStart: [UInt64] = []
            var arrivals = delivered.makeAsyncIterator()
            var sequence = 0
            while Clock.wall() < deadline {
                sequence += 1
                let ping = Message(
                    id: "ping\(sequence)", from_user_key: "p", to_user_key: "p", message: "",
                    created_ts: Double(sequence),
                    type: "ping")
                let begun = Clock.wall()
                _ = try await pings.add(object: ping)
                let acknowledged = Clock.wall()
                while let (id, time) = await arrivals.next() {
                    if id == ping.id {
                        latencies.append(time > acknowledged ? time - acknowledged : 0)
                        fromStart.append(time - begun)
                        break
                    }
                }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            return (latencies, fromStart)
        }
        let pool = newEvents(tasks: 64, perTask: 100_000 / 64, tag: "o\(observers)")
        let result = try await saveInTasks(64, pool, perTask: 100_000 / 64, until: deadline) {
            try await Self.saveInContext($0, store: store, events: events)
        }
        let (latencies, fromStart) = try await pinger.value
        pingWatcher.cancel()
        for watcher in watchers { watcher.cancel() }
        for watcher in watchers { _ = try? await watcher.value }
        return (
            Double(result.latencies.count) / (Double(result.nanoseconds) / 1e9), LatencyStats(latencies),
            LatencyStats(fromStart)
        )
    }

    /// Alternating feed-on and feed-off rounds per saver count: the disk's speed drifts.
    static let feedRounds = 4

    /// A fresh durable event store, with the change feed on or off.
    static func openObservedStore(path: String, feed: Bool) async throws -> (DataStore, StoreCollection<Message>) {
        var options = DataStore.Options(mapSize: 1 << 30, durability: .durable)
        options.changeFeed = feed ? ChangeFeedOptions() : .disabled
        let store = try DataStore.open(path: path, options: options)
        let events: StoreCollection<Message> = try await store.collection(
            "events", mapping: .record(idField: "id"), indexes: [IndexDefinition("created_ts")])
        return (store, events)
    }
}
