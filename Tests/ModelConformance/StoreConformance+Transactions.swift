// The store battery's write transactions (`write { tx in }`): read-modify-write with no conflict,
// atomic across collections, each isolated in its batch, on every store.
import DataStoreCore
import DataStoreEngine
import Foundation
import Testing

extension StoreConformance {
    static let transactions: [StoreScenario] = [
        transactionReadsItsWrites, hotRecordTransactions, transactionFailures, transactionIsolation,
        transactionWritesInTheFeed, feedConsumers
    ]

    static let transactionReadsItsWrites = StoreScenario(
        "a write transaction reads its own writes, writes two collections at once and returns its result"
    ) { sut in
        let users = try await users(sut)
        let messages = try await sut.store.collection(
            sut.name("tx-messages"), mapping: plain, indexes: [IndexDefinition("from")])
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        let (seen, sent) = try await sut.store.write { tx in
            let added = try tx.add(["from": "u1", "text": "hi"], to: messages)
            let user = try tx.update(
                id: "u1", FieldUpdate(set: ["profile.city": "Milan"], increment: ["last_seen": 5]), in: users)
            let mine = try tx.query(messages, params: ["from": "u1"])
            return (user, mine.count == 1 && mine[0]["text"] == "hi" ? added["id"] : nil)
        }
        #expect(seen.profile.city == "Milan" && seen.last_seen == 5)
        let id = try #require(sent)
        #expect(try await messages.get(id: id)["text"] == "hi")
        #expect(try await users.get(id: "u1").profile == ChatUser.Profile(city: "Milan", languages: ["en"]))
        // Reads see the latest committed state: a get of what another call wrote just before.
        _ = try await users.put(id: "u2", object: ChatUser(id: "u2", name: "Bob", city: "Oslo"))
        let bob = try await sut.store.write { tx in try tx.get(id: "u2", from: users).name }
        #expect(bob == "Bob")
        let removed = try await sut.store.write { tx in
            try tx.remove(id: "u2", from: users)
            return try tx.remove(params: ["from": "u1"], from: messages)
        }
        #expect(removed == 1)
        #expect(try await messages.count(params: nil) == 0)
        await #expect { _ = try await users.get(id: "u2") } throws: { ($0 as? DataStoreError)?.code == .notFound }
    }

    static let hotRecordTransactions = StoreScenario(
        "100 concurrent read-modify-writes of one hot record through write { } all succeed, none lost"
    ) { sut in
        let counters = try await sut.store.collection(sut.name("tx-hot"), mapping: plain)
        let log = try await sut.store.collection(sut.name("tx-log"), mapping: plain)
        _ = try await counters.add(object: ["id": "hot", "n": 0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for unit in 0..<100 {
                group.addTask {
                    try await sut.store.write { tx in
                        let counter = try tx.get(id: "hot", from: counters)
                        guard case .int(let n)? = counter["n"] else { throw DataStoreError(.invalidValue, "n") }
                        try tx.put(id: "hot", object: ["id": "hot", "n": .int(n + 1)], in: counters)
                        try tx.add(["unit": .int(Int64(unit)), "saw": .int(n)], to: log)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counters.get(id: "hot")["n"] == .int(100))
        // Each unit saw a different count: every read saw every write committed before it.
        let seen = try await log.query(params: nil, options: nil).compactMap { $0["saw"] }
        #expect(Set(seen).count == 100 && seen.count == 100)
    }

    static let transactionFailures = StoreScenario(
        "a write that fails fails its transaction whole, even when the closure catches it; the transaction dies with its closure"
    ) { sut in
        let items = try await sut.store.collection(
            sut.name("tx-fail"), mapping: plain, indexes: [IndexDefinition("email", unique: true)])
        _ = try await items.add(object: ["id": "a", "email": "x"])
        await #expect {
            try await sut.store.write { tx in
                try tx.put(id: "b", object: ["id": "b", "email": "y"], in: items)
                do { try tx.add(["id": "c", "email": "x"], to: items) } catch {}
                return 1
            }
        } throws: { ($0 as? DataStoreError)?.code == .uniqueViolation }
        #expect(try await items.count(params: nil) == 1)
        // A read that finds nothing does not fail the transaction.
        let added = try await sut.store.write { tx in
            if (try? tx.get(id: "d", from: items)) == nil { try tx.add(["id": "d"], to: items) }
            return try tx.query(items, params: nil).count
        }
        #expect(added == 2)
        let kept = KeptTransaction()
        try await sut.store.write { tx in kept.transaction = tx }
        let late = try #require(kept.transaction)
        #expect { _ = try late.get(id: "a", from: items) } throws: { ($0 as? DataStoreError)?.code == .invalidValue }
        await #expect {
            try await sut.store.write { tx in _ = try tx.update(id: "a", set: ["id": "z"], in: items) }
        } throws: { ($0 as? DataStoreError)?.code == .invalidValue }
        #expect(try await items.get(id: "a")["email"] == "x")
    }

    static let transactionIsolation = StoreScenario(
        "transactions that throw among concurrent ones are rolled back alone; the others commit"
    ) { sut in
        struct Refused: Error {}
        let items = try await sut.store.collection(sut.name("tx-isolated"), mapping: plain)
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for unit in 0..<40 {
                group.addTask {
                    do {
                        try await sut.store.write { tx in
                            try tx.add(["id": .string("i\(unit)")], to: items)
                            try tx.add(["id": .string("j\(unit)")], to: items)
                            if unit % 3 == 0 { throw Refused() }
                        }
                        return true
                    } catch is Refused { return false }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let stored = Set(try await items.query(params: nil, options: nil).compactMap { $0["id"]?.stringValue })
        let expected = Set((0..<40).filter { $0 % 3 != 0 }.flatMap { ["i\($0)", "j\($0)"] })
        #expect(outcomes.filter { $0 }.count == 26)
        #expect(stored == expected)
    }

    static let transactionWritesInTheFeed = StoreScenario(
        "a write transaction's changes are one commit of the change feed, with the commit's identity"
    ) { sut in
        let items = try await sut.store.collection(sut.name("tx-feed"), mapping: plain)
        _ = try await items.add(object: ["id": "a", "n": 1])
        let start = try await commit(inserting: "a", into: sut.name("tx-feed"), of: sut.store)
        try await sut.store.write { tx in
            try tx.update(id: "a", FieldUpdate(increment: ["n": 1]), in: items)
            try tx.add(["id": "b"], to: items)
            try tx.add(["id": "c"], to: items)
            try tx.remove(id: "c", from: items)
        }
        let events = try await commits(sut.store, after: start, in: sut.name("tx-feed"), atLeast: 1)
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.inserted == ["b"] && event.updated == ["a"] && event.removed.isEmpty, "\(event)")
    }
}

/// A transaction kept past its closure, to show that it refuses calls then.
private final class KeptTransaction: @unchecked Sendable {
    // @unchecked Sendable: written inside one `write` closure, read after that call returned.
    var transaction: (any DocumentTransaction)?
}
