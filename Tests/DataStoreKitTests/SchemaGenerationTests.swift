import DataStoreCore
@testable import DataStoreKit
import Foundation
import Testing

@Suite("Schema generation")
struct SchemaGenerationTests {
    private static func collection(_ store: DataStore, indexes: [IndexDefinition] = []) async throws
        -> StoreCollection<Document>
    {
        try await store.collection(
            "docs", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }), indexes: indexes)
    }

    private static func storedGeneration(_ store: DataStore) throws -> [UInt8]? {
        try store.environment.read { try $0.value(forKey: StoreSchema.generationKey, in: store.meta) }
    }

    @Test("every schema write raises the generation in _meta (docs/encoding.md's vector)")
    func generationVector() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        #expect(try Self.storedGeneration(temporary.store) == nil)
        _ = try await Self.collection(temporary.store)
        #expect(try Self.storedGeneration(temporary.store) == [0, 0, 0, 0, 0, 0, 0, 1])
        try await temporary.store.addIndex(IndexDefinition("a"), to: "docs")
        #expect(try Self.storedGeneration(temporary.store) == [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])
        try await temporary.store.dropIndex(named: "a", from: "docs")
        #expect(try Self.storedGeneration(temporary.store) == [0, 0, 0, 0, 0, 0, 0, 4])
    }

    @Test("a process alone with its store reads no generation per save or query")
    func aloneReadsNothing() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let store = temporary.store
        let docs = try await Self.collection(store, indexes: [IndexDefinition("a")])
        // The first save and query after the declaration may read it once.
        _ = try await docs.add(object: ["id": "warm", "a": 0])
        _ = try await docs.query(params: ["a": 0], options: nil)
        let before = store.schemaWatch.generationReads.load(ordering: .relaxed)
        for n in 0..<20 {
            _ = try await docs.add(object: ["id": .string("d\(n)"), "a": .int(Int64(n % 3))])
            let found = try await docs.query(params: ["a": .int(Int64(n % 3))], options: nil)
            #expect(found.contains { $0["id"] == .string("d\(n)") })
        }
        #expect(store.schemaWatch.generationReads.load(ordering: .relaxed) == before)
    }

    @Test("a schema another writer records is reloaded before the next save uses the indexes")
    func reloadsAForeignSchemaWrite() async throws {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        defer { temporary.remove() }
        let store = temporary.store
        let docs = try await Self.collection(store)
        _ = try await docs.add(object: ["id": "x", "a": 1])
        // What another process's declaration commits: the index database and the schema naming
        // it, written around this process's writer.
        let definition = IndexDefinition("a")
        let database = try store.environment.openDatabase(named: "i/docs/a", options: .create)
        try store.environment.write { transaction in
            let index = IndexTable(definition: definition, database: database, state: .ready)
            try transaction.put(
                [],
                forKey: index.entries(for: ["id": "x", "a": 1], idKey: docs.storage.idKey("x"), collection: "docs")[0]
                    .key, in: database)
            let schema = StoreSchema.Collection(
                idField: "id", indexes: [StoreSchema.Index(definition: definition, state: .ready, declared: nil)])
            try StoreSchema.write(schema, for: "docs", in: &transaction, meta: store.meta)
        }
        _ = try await docs.add(object: ["id": "y", "a": 1])
        #expect(docs.indexes == [definition])
        #expect(try store.check().isEmpty)
        #expect(try docs.explain(params: ["a": 1]).description.contains("index"))
        let found = try await docs.query(params: ["a": 1], options: nil)
        #expect(found.count == 2)
    }
}
