import DataStoreCore
import Testing

@Suite("Query evaluation properties")
struct QueryPropertyTests {
    /// Random documents and random queries: every result matches, the count is
    /// `min(limit, max(0, matches - offset))`, the results are in `areInOrder` order, and they
    /// are exactly the window of the sorted matches.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func evaluateInvariants(seed: UInt64) {
        var random = QueryRandom(seed: seed)
        var returned = 0, emptyAnswers = 0
        for round in 0..<150 {
            let documents = (0..<Int.random(in: 0...40, using: &random)).map { random.document(index: $0) }
            let conditions = (0..<Int.random(in: 0...3, using: &random)).map { _ in random.condition() }
            let sort = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                SortKey(field: random.pick(["a", "b", "c"]), ascending: random.chance(0.5))
            }
            let limit: Int? = random.chance(0.5) ? Int.random(in: 0...12, using: &random) : nil
            let offset = random.chance(0.5) ? Int.random(in: 0...45, using: &random) : 0
            let query = Query(conditions: conditions, sort: sort, limit: limit, offset: offset)

            let result = query.evaluate(documents, idField: "id")
            returned += result.count
            if result.isEmpty { emptyAnswers += 1 }
            let matching = documents.filter { query.matches($0) }
            let expectedCount = min(limit ?? .max, max(0, matching.count - offset))
            #expect(result.count == expectedCount, "round \(round): \(query)")
            #expect(result.allSatisfy { query.matches($0) }, "round \(round): \(query)")
            for (a, b) in zip(result, result.dropFirst()) {
                #expect(query.areInOrder(a, b, idField: "id"), "round \(round): \(query): \(a) before \(b)")
            }
            // Ids are unique, so the order is total: the result is the window of the sorted matches.
            let sorted = matching.sorted { query.areInOrder($0, $1, idField: "id") }
            #expect(result == Array(sorted.dropFirst(offset).prefix(limit ?? .max)), "round \(round): \(query)")
            // Matching is the conjunction of the conditions.
            for document in documents.prefix(5) {
                #expect(query.matches(document) == conditions.allSatisfy { $0.matches(document) })
            }
        }
        // The generator must exercise both outcomes, or the checks above are vacuous.
        #expect(returned > 150)
        #expect(emptyAnswers > 10 && emptyAnswers < 120)
    }

    /// A parsed query equals (and hashes like) the same query built from parts, numbers compared
    /// by value.
    @Test func parsedQueriesAreHashableValues() throws {
        let a = try Query(params: ["ts >=": 1, "name": "x"], options: ["sort": ["-ts"], "limit": 5])
        let b = Query(
            conditions: [
                Condition(field: "ts", op: .greaterOrEqual, value: .double(1)),
                Condition(field: "name", op: .equal, value: "x")
            ], sort: [SortKey(field: "ts", ascending: false)], limit: 5)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
    }
}
