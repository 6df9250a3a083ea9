import DataStoreCore
@testable import DataStoreKit
import Foundation
import Testing

@Suite("Migrations")
struct MigratorTests {
    struct Failure: Error {}

    /// A store with a collection "Note" of `count` notes (n0…), indexed on type.
    static func seeded(_ count: Int = 10) async throws -> (TemporaryStore, StoreCollection<Note>) {
        let temporary = try TemporaryStore(options: DataStore.Options(durability: .none))
        let notes = try await temporary.store.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])
        try await notes.add(
            contentsOf: (0..<count).map { note("n\($0)", ts: Double($0), type: $0 % 2 == 0 ? "a" : "b") })
        return (temporary, notes)
    }

    @Test("open(path:migrator:) sets up a new directory: its collections and indexes made by the migrations")
    func opensANewStore() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-migrate-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var migrator = Migrator()
        migrator.registerMigration("v1: notes") { migration in
            migration.createCollection("Note", indexes: [IndexDefinition("created_ts")])
        }
        let store = try await DataStore.open(path: path, migrator: migrator)
        let notes = try await store.collection(Note.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        #expect(notes.indexes.map(\.name) == ["created_ts"] && notes.undeclaredIndexes.isEmpty)
        try await notes.add(contentsOf: [note("a", ts: 1), note("b", ts: 2)])
        store.close()
        let again = try await DataStore.open(path: path, migrator: migrator)
        defer { again.close() }
        #expect(try migrator.appliedMigrations(in: again) == ["v1: notes"])
        #expect(try await again.documentCollection("Note").count(params: ["created_ts >": 1]) == 1)
    }

    @Test("each migration runs once, in order, and is recorded in the store")
    func runsOnceInOrder() async throws {
        let (temporary, notes) = try await Self.seeded()
        defer { temporary.remove() }
        var migrator = Migrator()
        migrator.registerMigration("1 index ts") { $0.addIndex(IndexDefinition("created_ts"), to: "Note") }
        migrator.registerMigration("2 tag") { migration in
            migration.transformDocuments(in: "Note") { document in
                var tagged = document
                tagged["tags"] = ["migrated"]
                return tagged
            }
        }
        #expect(try await migrator.migrate(temporary.store) == ["1 index ts", "2 tag"])
        // docs/encoding.md, Store layout: `_meta` key `migration/<name>`, value `01`.
        let recorded = try temporary.store.environment.read { transaction in
            try transaction.value(forKey: Array("migration/1 index ts".utf8), in: temporary.store.meta)
        }
        #expect(recorded == [0x01])
        #expect(try migrator.appliedMigrations(in: temporary.store) == ["1 index ts", "2 tag"])
        #expect(try await migrator.migrate(temporary.store) == [])
        migrator.registerMigration("3 untag") { $0.transformDocuments(in: "Note") { ["id": $0["id"]!, "x": 1] } }
        #expect(try await migrator.migrate(temporary.store) == ["3 untag"])
        let documents = try notes.documents(matching: Query())
        #expect(documents.count == 10 && documents.allSatisfy { $0.count == 2 && $0["x"] == 1 })
        try expectConsistent(temporary.store)
    }

    @Test("rename a field, drop an index, add one, remove documents: queries and check() agree")
    func stepsTogether() async throws {
        let (temporary, _) = try await Self.seeded()
        defer { temporary.remove() }
        var migrator = Migrator()
        migrator.registerMigration("reshape") { migration in
            migration.renameField("type", to: "kind", in: "Note")
            migration.dropIndex(named: "type", from: "Note")
            migration.addIndex(IndexDefinition("kind"), to: "Note")
            migration.transformDocuments(in: "Note") { $0["created_ts"] == 9 ? nil : $0 }
        }
        try await migrator.migrate(temporary.store)
        let notes = try await temporary.store.collection(
            "Note", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }))
        #expect(notes.indexes.map(\.name) == ["kind"])
        #expect(try await notes.count(params: nil) == 9)
        #expect(try await notes.count(params: ["kind": "b"]) == 4)
        #expect(try await notes.count(params: ["type": "b"]) == 0)
        #expect(try notes.explain(params: ["kind": "a"]).description.contains("index scan of kind"))
        try expectConsistent(temporary.store)
    }

    @Test("a failing migration leaves the store as it was, names itself, and stops the later ones")
    func failureRollsBack() async throws {
        let (temporary, notes) = try await Self.seeded()
        defer { temporary.remove() }
        let before = try notes.documents(matching: Query())
        var migrator = Migrator()
        migrator.registerMigration("ok") { $0.addIndex(IndexDefinition("message"), to: "Note") }
        migrator.registerMigration("breaks") { migration in
            migration.renameField("message", to: "text", in: "Note")
            migration.dropIndex(named: "type", from: "Note")
            migration.addIndex(IndexDefinition("created_ts"), to: "Note")
            migration.transformDocuments(in: "Note") { document in
                if document["id"] == "n7" { throw Failure() }
                return document
            }
        }
        migrator.registerMigration("later") { $0.dropIndex(named: "message", from: "Note") }
        let error = await #expect(throws: DataStoreError.self) { try await migrator.migrate(temporary.store) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("'breaks'") == true)
        #expect(error?.message.contains("'later'") == true)
        #expect(try migrator.appliedMigrations(in: temporary.store) == ["ok"])
        #expect(try notes.documents(matching: Query()) == before)
        #expect(notes.indexes.map(\.name).sorted() == ["message", "type"])
        #expect(try await notes.count(params: ["type": "a"]) == 5)
        try expectConsistent(temporary.store)
        // Reopened, the store holds what it held before the failed migration.
        let path = temporary.path
        temporary.store.close()
        let reopened = try DataStore.open(path: path + "/", options: DataStore.Options(durability: .none))
        let again = try await reopened.collection(Note.self, idField: "id", indexes: [IndexDefinition("type")])
        #expect(again.undeclaredIndexes.map(\.name) == ["message"])
        try expectConsistent(reopened)
    }

    @Test("a unique index the documents break fails its migration and leaves no index behind")
    func uniqueIndexFails() async throws {
        let (temporary, notes) = try await Self.seeded()
        defer { temporary.remove() }
        var migrator = Migrator()
        migrator.registerMigration("unique type") {
            $0.addIndex(IndexDefinition("type", fields: ["type"], unique: true), to: "Note")
        }
        let clash = await #expect(throws: DataStoreError.self) { try await migrator.migrate(temporary.store) }
        #expect(clash?.code == .migrationFailed)
        #expect(clash?.message.contains("already has an index type") == true)
        migrator = Migrator()
        migrator.registerMigration("unique ts") {
            $0.addIndex(IndexDefinition("ts", fields: ["type"], unique: true), to: "Note")
        }
        let violated = await #expect(throws: DataStoreError.self) { try await migrator.migrate(temporary.store) }
        #expect((violated?.underlying as? DataStoreError)?.code == .uniqueViolation)
        #expect(notes.indexes.map(\.name) == ["type"])
        #expect(try migrator.appliedMigrations(in: temporary.store).isEmpty)
        try expectConsistent(temporary.store)
    }

    @Test("a missing collection, a changed id and a name registered twice are migration errors")
    func badMigrations() async throws {
        let (temporary, notes) = try await Self.seeded(3)
        defer { temporary.remove() }
        var missing = Migrator()
        missing.registerMigration("nowhere") { $0.renameField("a", to: "b", in: "Nothing") }
        let notFound = await #expect(throws: DataStoreError.self) { try await missing.migrate(temporary.store) }
        #expect(notFound?.code == .migrationFailed && notFound?.message.contains("Nothing") == true)
        var renaming = Migrator()
        renaming.registerMigration("new ids") { migration in
            migration.transformDocuments(in: "Note") { document in
                var moved = document
                moved["id"] = "x"
                return moved
            }
        }
        let idChange = await #expect(throws: DataStoreError.self) { try await renaming.migrate(temporary.store) }
        #expect(idChange?.message.contains("ids cannot change") == true)
        var twice = Migrator()
        twice.registerMigration("same") { _ in }
        twice.registerMigration("same") { _ in }
        let duplicate = await #expect(throws: DataStoreError.self) { try await twice.migrate(temporary.store) }
        #expect(duplicate?.message.contains("registered twice") == true)
        #expect(try notes.documents(matching: Query()).map { $0["id"] } == ["n0", "n1", "n2"])
    }

    @Test("open(path:migrator:) opens and migrates")
    func openMigrates() async throws {
        let (temporary, _) = try await Self.seeded(2)
        defer { temporary.remove() }
        var migrator = Migrator()
        migrator.registerMigration("drop type") { $0.dropIndex(named: "type", from: "Note") }
        let store = try await DataStore.open(
            path: temporary.path, options: DataStore.Options(durability: .none), migrator: migrator)
        #expect(store === temporary.store)
        #expect(try migrator.appliedMigrations(in: store) == ["drop type"])
    }
}
