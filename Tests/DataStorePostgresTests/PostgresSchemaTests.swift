import DataStoreCore
import DataStoreKit
import Foundation
import Testing

@testable import DataStorePostgres

/// Declarations against `_meta`: indexes built over existing rows, kept when a later declaration
/// leaves them out, and the plan shown with the server's own.
@Suite("PostgreSQL schema", .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresSchemaTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    @Test("an index declared over existing rows is built in chunks and serves queries; leaving it out keeps it")
    func indexOverExistingRows() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("late")
        let plain = try await store.collection(name, mapping: Self.mapping)
        try await plain.add(contentsOf: (0..<25).map { ["id": .int(Int64($0)), "n": .int(Int64($0 % 5))] })
        let indexed = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("n")], indexBuildChunk: 4)
        #expect(try indexed.explain(params: ["n": 3]).description.hasPrefix("index scan of n"))
        #expect(
            try await indexed.query(params: ["n": 3], options: nil).map { $0["id"] }
                == [3, 8, 13, 18, 23].map {
                    Value.int($0)
                })
        let again = try await store.collection(name, mapping: Self.mapping)
        #expect(again.indexes.map(\.name) == ["n"])
        #expect(again.undeclaredIndexes.map(\.name) == ["n"])
        _ = try await again.add(object: ["id": 100, "n": 3])
        #expect(try await indexed.count(params: ["n": 3]) == 6)
    }

    @Test(
        "a handle opened before an index was declared, here or by another store, writes that index's entries",
        arguments: [false, true])
    func handleOpenedBeforeADeclaration(elsewhere: Bool) async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let other = elsewhere ? try await PostgresTestServer.store() : store
        defer { if elsewhere { other.close() } }
        let name = PostgresTestServer.uniqueName("stale")
        let early = try await store.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("a")])
        _ = try await early.add(object: ["id": 1, "a": 1, "b": "x", "tags": ["p"]])
        let later = try await other.collection(
            name, mapping: Self.mapping,
            indexes: [IndexDefinition("a"), IndexDefinition("b"), IndexDefinition("tags", multiValue: true)])
        _ = try await early.add(object: ["id": 2, "a": 2, "b": "x", "tags": ["p", "q"]])
        _ = try await early.put(id: 1, object: ["id": 1, "a": 1, "b": "y", "tags": ["q"]])
        #expect(try await later.query(params: ["b": "x"], options: nil).map { $0["id"] } == [2])
        #expect(try await later.query(params: ["b": "y"], options: nil).map { $0["id"] } == [1])
        #expect(try await later.query(params: ["tags": "q"], options: nil).map { $0["id"] } == [1, 2])
        #expect(try store.check(collections: [name]).isEmpty)
    }

    @Test("on a server without shared advisory locks, writes compare the index lists alone and go on")
    func withoutSchemaLock() async throws {
        var options = PostgresStore.Options()
        options.schemaLockFunction = "dsk_no_such_lock"
        let store = try await PostgresTestServer.store(options: options)
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("nolock")
        let early = try await store.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("a")])
        _ = try await early.add(object: ["id": 1, "a": 1, "b": "x"])
        let later = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("a"), IndexDefinition("b")])
        _ = try await early.add(object: ["id": 2, "a": 2, "b": "x"])
        #expect(try await later.query(params: ["b": "x"], options: nil).map { $0["id"] } == [1, 2])
        #expect(try store.check(collections: [name]).isEmpty)
    }

    @Test("an index declared after another was dropped never takes its column number")
    func columnNumbersNotReused() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("columns")
        let first = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("a"), IndexDefinition("b")])
        let dropped = try #require(first.layout.indexes.first { $0.definition.name == "b" }).column
        _ = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("a")], undeclaredIndexes: .drop)
        let third = try await store.collection(
            name, mapping: Self.mapping, indexes: [IndexDefinition("a"), IndexDefinition("c")])
        let added = try #require(third.layout.indexes.first { $0.definition.name == "c" }).column
        #expect(added > dropped)
        _ = try await third.add(contentsOf: [["id": 1, "a": 1, "c": "x"], ["id": 2, "a": 2, "b": "x", "c": "y"]])
        // A handle that still knows the dropped index finds its column gone, never another index's
        // keys, then reads with the indexes that exist.
        #expect(try await first.query(params: ["b": "x"], options: nil).map { $0["id"] } == [2])
        #expect(first.layout.indexes.map(\.definition.name) == ["a", "c"])
        #expect(try await first.count(params: ["c": "x"]) == 1)
    }

    @Test("a handle's reads use an index declared elsewhere once its index list is older than indexListMaxAge")
    func readsTakeIndexesDeclaredElsewhere() async throws {
        let name = PostgresTestServer.uniqueName("laterindex")
        let checking = try await PostgresTestServer.store(options: PostgresStore.Options(indexListMaxAge: .zero))
        defer { checking.close() }
        let trusting = try await PostgresTestServer.store(
            options: PostgresStore.Options(indexListMaxAge: .seconds(3_600)))
        defer { trusting.close() }
        let checked = try await checking.collection(name, mapping: Self.mapping)
        let viaContext = try await checking.collection(name, mapping: Self.mapping)
        let trusted = try await trusting.collection(name, mapping: Self.mapping)
        _ = try await checked.add(contentsOf: (0..<6).map { ["id": .int(Int64($0)), "n": .int(Int64($0 % 3))] })
        let declaring = try await PostgresTestServer.store()
        defer { declaring.close() }
        _ = try await declaring.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("n")])
        #expect(try await checked.query(params: ["n": 1], options: nil).map { $0["id"] } == [1, 4])
        #expect(checked.layout.indexes.map(\.definition.name) == ["n"])
        let context = checking.newContext()
        #expect(try context.query(viaContext, params: ["n": 2]).map { $0["id"] } == [2, 5])
        #expect(viaContext.layout.indexes.map(\.definition.name) == ["n"])
        #expect(try await trusted.query(params: ["n": 1], options: nil).map { $0["id"] } == [1, 4])
        #expect(trusted.layout.indexes.isEmpty)
    }

    @Test("an index list counts as old once indexListMaxAge has passed since it was last checked, for one asker")
    func indexListAge() async throws {
        let layout = TableLayout(name: "aging", idField: "id", tag: 1, indexes: [])
        let age = Duration.milliseconds(200).saturatingNanoseconds
        #expect(!layout.claimIndexListCheck(olderThan: age))
        try await Task.sleep(for: .milliseconds(250))
        #expect(layout.claimIndexListCheck(olderThan: age))
        #expect(!layout.claimIndexListCheck(olderThan: age))
        #expect(layout.claimIndexListCheck(olderThan: 0))
    }

    @Test("a context plans over the indexes its snapshot holds, not one declared after it began")
    func contextSnapshotPredatesADeclaration() async throws {
        let store = try await PostgresTestServer.store(options: PostgresStore.Options(indexListMaxAge: .zero))
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("contextlate")
        let handle = try await store.collection(name, mapping: Self.mapping)
        let other = try await store.collection(PostgresTestServer.uniqueName("contextother"), mapping: Self.mapping)
        _ = try await handle.add(contentsOf: (0..<6).map { ["id": .int(Int64($0)), "n": .int(Int64($0 % 3))] })
        _ = try await other.add(object: ["id": 1])
        let context = store.newContext()
        // The snapshot begins on another table, so the declaration below does not wait for it.
        #expect(try context.get(id: 1, from: other)["id"] == 1)
        let elsewhere = try await PostgresTestServer.store()
        defer { elsewhere.close() }
        _ = try await elsewhere.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("n")])
        _ = try await handle.count(params: ["n": 1])
        #expect(handle.layout.indexes.map(\.definition.name) == ["n"])
        // The snapshot's rows do not hold the new index's keys: the context reads them without it.
        #expect(try context.query(handle, params: ["n": 1]).map { $0["id"] } == [1, 4])
        context.refresh()
        #expect(try context.query(handle, params: ["n": 1]).map { $0["id"] } == [1, 4])
    }

    @Test("a context whose old handle meets a dropped index reads on, over the same snapshot")
    func contextMeetsDroppedIndex() async throws {
        // Index lists taken only when a read meets a dropped index, so that this test's read does.
        let store = try await PostgresTestServer.store(
            options: PostgresStore.Options(indexListMaxAge: .seconds(3_600)))
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("contextdrop")
        let old = try await store.collection(name, mapping: Self.mapping, indexes: [IndexDefinition("b")])
        let other = try await store.collection(PostgresTestServer.uniqueName("contextother"), mapping: Self.mapping)
        _ = try await old.add(contentsOf: [["id": 1, "b": "x"], ["id": 2, "b": "y"]])
        _ = try await other.add(object: ["id": 1])
        let context = store.newContext()
        // The snapshot begins on another table: this one is not locked by it, so the drop goes ahead.
        #expect(try context.get(id: 1, from: other)["id"] == 1)
        _ = try await old.add(object: ["id": 3, "b": "x"])
        let elsewhere = try await PostgresTestServer.store()
        defer { elsewhere.close() }
        _ = try await elsewhere.collection(name, mapping: Self.mapping, indexes: [], undeclaredIndexes: .drop)
        #expect(old.layout.indexes.map(\.definition.name) == ["b"])
        // The query planned over the dropped index finds its column gone, takes the stored list and
        // runs again in the same snapshot: id 3, saved after the snapshot began, stays unseen.
        #expect(try context.query(old, params: ["b": "x"]).map { $0["id"] } == [1])
        #expect(old.layout.indexes.isEmpty)
        #expect(try context.get(id: 2, from: old)["b"] == "y")
        #expect { try context.get(id: 3, from: old) } throws: { ($0 as? DataStoreError)?.code == .notFound }
    }

    @Test("explainOnServer shows the planner's choice and the server's plan of its statement")
    func explainOnServer() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let collection = try await store.collection(
            PostgresTestServer.uniqueName("explain"), mapping: Self.mapping, indexes: [IndexDefinition("n")])
        let text = try collection.explainOnServer(params: ["n >": 1], options: ["sort": ["n"], "limit": 3])
        #expect(text.hasPrefix("index scan of n"), "\(text)")
        #expect(text.contains("server: "), "\(text)")
        #expect(text.contains("Limit"), "\(text)")
    }

    @Test("a declaration with another id field than the stored one is a schema mismatch")
    func idFieldMismatch() async throws {
        let store = try await PostgresTestServer.store()
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("ids")
        _ = try await store.collection(name, mapping: Self.mapping)
        do {
            _ = try await store.collection(
                name, mapping: ObjectMapping<Document>(idField: "key", encode: { $0 }, decode: { $0 }))
            Issue.record("another id field was accepted")
        } catch let error as DataStoreError {
            #expect(error.code == .schemaMismatch)
        }
    }
}
