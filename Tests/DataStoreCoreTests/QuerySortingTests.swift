import DataStoreCore
import Testing

@Suite("Query sorting and windows")
struct QuerySortingTests {
    private let documents: [Document] = [
        ["id": "d", "ts": 2],
        ["id": "b", "ts": 1],
        ["id": "e"],
        ["id": "a", "ts": 2],
        ["id": "c", "ts": .null],
        ["id": "f", "ts": "x"],
        ["id": "g", "ts": .double(1.5)]
    ]

    private func ids(_ query: Query, _ documents: [Document]? = nil) -> [String] {
        query.evaluate(documents ?? self.documents, idField: "id").map { $0["id"]?.stringValue ?? "?" }
    }

    @Test func ascendingMissingFirstThenTotalOrder() {
        // missing < null < numbers < strings; ties (ts 2) by id ascending.
        #expect(ids(Query(sort: [SortKey(field: "ts")])) == ["e", "c", "b", "g", "a", "d", "f"])
    }

    @Test func descendingIsReversedButTiesStayByIdAscending() {
        #expect(ids(Query(sort: [SortKey(field: "ts", ascending: false)])) == ["f", "a", "d", "g", "b", "c", "e"])
    }

    @Test func noSortOrdersById() {
        #expect(ids(Query()) == ["a", "b", "c", "d", "e", "f", "g"])
    }

    @Test func secondKeyBreaksTies() {
        let docs: [Document] = [
            ["id": 1, "a": 1, "b": "x"], ["id": 2, "a": 1, "b": "y"], ["id": 3, "a": 0, "b": "z"],
            ["id": 4, "a": 1]
        ]
        let query = Query(sort: [SortKey(field: "a"), SortKey(field: "b", ascending: false)])
        #expect(query.evaluate(docs, idField: "id").map { $0["id"] } == [3, 2, 1, 4])
    }

    @Test func numericIdsAndMissingIds() {
        let docs: [Document] = [["id": 10], ["id": .double(2.5)], ["x": 1], ["id": 3]]
        let sorted = Query().evaluate(docs, idField: "id")
        #expect(sorted.map { $0["id"] } == [nil, .double(2.5), 3, 10])
    }

    @Test func areInOrderIsStrict() {
        let query = Query(sort: [SortKey(field: "ts", ascending: false)])
        let a: Document = ["id": "a", "ts": 1], b: Document = ["id": "b", "ts": 1], c: Document = ["id": "c"]
        #expect(query.areInOrder(a, b, idField: "id"))
        #expect(!query.areInOrder(b, a, idField: "id"))
        #expect(!query.areInOrder(a, a, idField: "id"))
        #expect(query.areInOrder(a, c, idField: "id"), "a missing field sorts last descending")
        #expect(Query(sort: [SortKey(field: "ts")]).areInOrder(c, a, idField: "id"))
        #expect(Query.compareSortValues(nil, .null) < 0)
        #expect(Query.compareSortValues(nil, nil) == 0)
        #expect(Query.compareSortValues(1, .double(1)) == 0)
    }

    @Test func equalDocumentsKeepInputOrder() {
        // Documents that tie on every key and the id (here: no id field) keep their input order.
        let docs: [Document] = [["n": 3], ["n": 1], ["n": 2]]
        #expect(Query().evaluate(docs, idField: "id") == docs)
    }

    @Test func wholeArraysSortByTheTotalOrder() {
        let docs: [Document] = [["id": 1, "v": [2]], ["id": 2, "v": [1, 5]], ["id": 3, "v": [1]], ["id": 4, "v": 9]]
        #expect(Query(sort: [SortKey(field: "v")]).evaluate(docs, idField: "id").map { $0["id"] } == [4, 3, 2, 1])
    }

    @Test func offsetAndLimit() {
        let sorted = ["a", "b", "c", "d", "e", "f", "g"]
        #expect(ids(Query(limit: 3)) == Array(sorted.prefix(3)))
        #expect(ids(Query(offset: 2)) == Array(sorted.dropFirst(2)))
        #expect(ids(Query(limit: 2, offset: 3)) == ["d", "e"])
        #expect(ids(Query(limit: 0)) == [])
        #expect(ids(Query(limit: 0, offset: 100)) == [])
        #expect(ids(Query(offset: 7)) == [])
        #expect(ids(Query(offset: 100)) == [])
        #expect(ids(Query(limit: 100, offset: 5)) == ["f", "g"])
        #expect(ids(Query(limit: Int.max, offset: 1)).count == 6)
        #expect(ids(Query(limit: 5), []) == [])
        // Out-of-range values from the memberwise initializer are clamped.
        #expect(ids(Query(limit: -1)) == [])
        #expect(ids(Query(offset: -3)) == sorted)
    }

    @Test func filterThenSortThenWindow() throws {
        let query = try Query(params: ["ts >=": 1], options: ["sort": ["-ts"], "offset": 1, "limit": 2])
        #expect(query.description == "ts >= 1 sort ts desc limit 2 offset 1")
        // Matches sorted: a(2) d(2) g(1.5) b(1); skip one, take two.
        #expect(ids(query) == ["d", "g"])
    }
}
