import DataStoreCore
import Foundation
import ModelConformance
import Testing
@testable import DataStoreKit

/// Random partial updates and deletes by query on the store and on a dictionary must agree, and
/// leave the indexes matching the records.
@Suite("Differential: partial updates and deletes by query vs brute force")
struct WriteDifferentialTests {
    @Test("random updates and removals by query agree with brute force", arguments: Array(UInt64(11)...13))
    func agree(seed: UInt64) async throws {
        var rng = SeededGenerator(seed: seed)
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let collection = try await DifferentialTests.indexedDocuments(in: temporary.store)
        var truth: [Value: Document] = [:]
        for id in 0..<120 {
            let document = DifferentialTests.randomDocument(id, &rng)
            _ = try await collection.add(object: document)
            truth[document["id"]!] = document
        }
        for _ in 0..<4 {
            for id in truth.keys.sorted(by: { Value.compare($0, $1) < 0 }) where Int.random(in: 0..<3, using: &rng) == 0
            {
                var set: [String: Value] = [:]
                var unset: [String] = []
                for field in ["a", "b", "c"] {
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: set[field] = DifferentialTests.randomValue(&rng) ?? .null
                    case 1: unset.append(field)
                    default: break
                    }
                }
                let stored = try await collection.update(id: id, set: set, unset: unset)
                truth[id] = try FieldUpdate(set: set, unset: unset).applied(to: truth[id]!, target: "docs")
                #expect(stored == truth[id])
            }
            let query = try DifferentialTests.randomQuery(&rng)
            let conditions = Query(conditions: query.conditions)
            let expected = conditions.evaluate(Array(truth.values), idField: "id").map { $0["id"]! }
            let removed = try await collection.remove(query)
            #expect(removed == expected.count, "\(conditions)")
            for id in expected { truth[id] = nil }
            let all = try await collection.all()
            #expect(all.count == truth.count)
            #expect(all.allSatisfy { truth[$0["id"]!] == $0 })
            try expectConsistent(temporary.store)
        }
    }
}
