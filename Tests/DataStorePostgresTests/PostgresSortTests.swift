import DataStoreCore
import DataStoreKit
import Testing

@testable import DataStorePostgres

/// Sorts read their values as the LMDB store does: a dotted name is a path into nested objects.
@Suite("PostgreSQL sorts", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresSortTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test("a sort on a nested path orders by the nested value, with and without an index on it")
    func nestedPathSort() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let ranks: [Int64] = [4, 1, 3, 0, 2]
        let documents: [Document] = ranks.enumerated().map { id, rank in
            ["id": .int(Int64(id)), "n": .object(["x": .int(rank)])]
        }
        let expected: [Value] = ranks.enumerated().sorted { $0.element < $1.element }.map { .int(Int64($0.offset)) }
        for indexes in [[], [IndexDefinition("n.x")]] {
            let collection = try await store.collection(
                PostgresTestServer.uniqueName("sort"), mapping: Self.mapping, indexes: indexes)
            try await collection.add(contentsOf: documents)
            let sorted = try await collection.query(params: nil, options: ["sort": ["n.x"]])
            #expect(sorted.map { $0["id"] } == expected, "indexes \(indexes.map(\.name))")
            let descending = try await collection.query(params: nil, options: ["sort": ["-n.x"], "limit": 2])
            #expect(
                descending.map { $0["id"] } == Array(expected.reversed().prefix(2)), "indexes \(indexes.map(\.name))")
        }
    }
}
