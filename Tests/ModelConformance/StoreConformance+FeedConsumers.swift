// The store battery's feed consumers: a named position kept in the store, saved in the same
// write transaction as the consumer's own writes, on every store.
import DataStoreCore
import DataStoreEngine
import Foundation
import Testing

extension StoreConformance {
    static let feedConsumers = StoreScenario(
        "a feed consumer's position is kept in the store and saved with its own writes: both land, or neither"
    ) { sut in
        let source = try await sut.store.collection(sut.name("consumed"), mapping: plain)
        let copies = try await sut.store.collection(sut.name("copies"), mapping: plain)
        let consumer = sut.name("copier")
        #expect(try sut.store.feedPosition(of: consumer) == nil)
        _ = try await source.add(object: ["id": "seed"])
        let start = try #require(try await commit(inserting: "seed", into: source.name, of: sut.store))
        try await sut.store.saveFeedPosition(start, of: consumer)
        #expect(try sut.store.feedPosition(of: consumer) == start)
        _ = try await source.add(contentsOf: [["id": "a"], ["id": "b"]])
        _ = try await source.add(object: ["id": "c"])
        // Each commit's inserts copied, and the position it reached saved, in one transaction.
        var copied: [Value] = []
        for _ in 0..<200 where copied.count < 3 {
            for try await event in try sut.store.changes(for: consumer).recordedSoFar {
                let inserted = event.changes.filter { $0.collection == source.name }.flatMap(\.inserted)
                try await sut.store.write { tx in
                    for id in inserted { try tx.add(["id": id], to: copies) }
                    try tx.saveFeedPosition(event.commit, of: consumer)
                }
                copied += inserted
            }
            if copied.count < 3 { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(copied == ["a", "b", "c"])
        let reached = try #require(try sut.store.feedPosition(of: consumer))
        #expect(reached > start)
        // A transaction that fails saves no position.
        await #expect {
            try await sut.store.write { tx in
                try tx.saveFeedPosition(CommitID(rawValue: reached.rawValue + 1_000_000), of: consumer)
                try tx.add(["id": "a"], to: copies)
            }
        } throws: { ($0 as? DataStoreError)?.code == .duplicateID }
        #expect(try sut.store.feedPosition(of: consumer) == reached)
        #expect(try await copies.count(params: nil) == 3)
        for bad in ["", "a\u{0}b", String(repeating: "x", count: 201)] {
            #expect { _ = try sut.store.feedPosition(of: bad) } throws: {
                ($0 as? DataStoreError)?.code == .invalidValue
            }
        }
    }
}
