import DataStoreCore
import Foundation
import LMDB
import Testing
@testable import DataStoreKit

/// A unique index holds on replacement as on insertion: a `put` (or a context's save) that gives
/// a stored record another record's unique value is refused and writes nothing, and `check()`
/// reports two records holding one unique value.
@Suite("Unique indexes on replacement")
struct UniqueReplaceTests {
    struct User: Codable, Equatable, Sendable {
        var id: String
        var email: String?
        var first: String = "f"
        var last: String = "l"
        var name: String = "n"
    }

    /// A store with `users`, unique on `email` and on the compound (`first`, `last`).
    struct Fixture {
        let temporary: TemporaryStore
        let users: StoreCollection<User>

        init() async throws {
            temporary = try TemporaryStore()
            users = try await temporary.store.collection(
                User.self, name: "users", idField: "id",
                indexes: [
                    IndexDefinition("email", unique: true),
                    IndexDefinition("full_name", fields: ["first", .descending("last")], unique: true)
                ])
        }

        var store: DataStore { temporary.store }

        /// Runs `body`, which must throw a unique violation naming `index` and every one of
        /// `values`, and checks that nothing was written: no commit, the same documents, a
        /// consistent store.
        func expectViolation(
            of index: String, showing values: [String], sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () async throws -> Void
        ) async throws {
            let commit = try store.environment.info().lastTransactionID
            let before = try await users.all()
            let error = await #expect(throws: DataStoreError.self, sourceLocation: sourceLocation) { try await body() }
            #expect(error?.code == .uniqueViolation, "\(String(describing: error))", sourceLocation: sourceLocation)
            #expect(
                error?.message.contains("unique index \(index) ") == true, "\(String(describing: error))",
                sourceLocation: sourceLocation)
            for value in values {
                #expect(
                    error?.message.contains(value) == true, "\(String(describing: error))",
                    sourceLocation: sourceLocation)
            }
            #expect(
                try store.environment.info().lastTransactionID == commit, "a refused write committed",
                sourceLocation: sourceLocation)
            #expect(
                try await users.all() == before, "a refused write changed the documents", sourceLocation: sourceLocation
            )
            let problems = try store.check()
            #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
        }
    }

    @Test("put replacing a record with another record's unique value is refused, names index and value, writes nothing")
    func putTakesAnotherRecordsValue() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        let users = fixture.users
        _ = try await users.add(object: User(id: "1", email: "a@x", first: "Ada"))
        _ = try await users.add(object: User(id: "2", email: "b@x", first: "Bob"))
        try await fixture.expectViolation(of: "email", showing: ["b@x"]) {
            _ = try await users.put(id: "1", object: User(id: "1", email: "b@x", first: "Ada"))
        }
        // The same replacement with a value no one holds, or with the record's own value, is fine.
        _ = try await users.put(id: "1", object: User(id: "1", email: "c@x", first: "Ada"))
        _ = try await users.put(id: "1", object: User(id: "1", email: "c@x", first: "Ada", name: "again"))
        #expect(try await users.get(id: "1").email == "c@x")
        // The value given up is free again.
        _ = try await users.put(id: "2", object: User(id: "2", email: "a@x", first: "Bob"))
        try expectConsistent(fixture.store)
    }

    @Test("a context saving a replacement that takes another record's unique value is refused whole")
    func contextSaveTakesAnotherRecordsValue() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        let users = fixture.users
        _ = try await users.add(object: User(id: "1", email: "a@x", first: "Ada"))
        _ = try await users.add(object: User(id: "2", email: "b@x", first: "Bob"))
        try await fixture.expectViolation(of: "email", showing: ["b@x"]) {
            let context = fixture.store.newContext()
            try context.add(User(id: "3", email: "c@x", first: "Cy"), to: users)
            _ = try context.put(id: "1", object: User(id: "1", email: "b@x", first: "Ada"), in: users)
            try await context.save()
        }
    }

    @Test("a replacement taking another record's values in a compound unique index is refused; one value alone is not")
    func compoundIndex() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        let users = fixture.users
        _ = try await users.add(object: User(id: "1", email: "a@x", first: "Ada", last: "Lovelace"))
        _ = try await users.add(object: User(id: "2", email: "b@x", first: "Ada", last: "Byron"))
        try await fixture.expectViolation(of: "full_name", showing: ["Ada", "Lovelace"]) {
            _ = try await users.put(id: "2", object: User(id: "2", email: "b@x", first: "Ada", last: "Lovelace"))
        }
        _ = try await users.put(id: "2", object: User(id: "2", email: "b@x", first: "Bob", last: "Lovelace"))
        try expectConsistent(fixture.store)
    }

    @Test("a replacement whose cut unique key equals another's is refused only when the real values are equal")
    func cutKeys() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        let users = fixture.users
        let stem = String(repeating: "long address ", count: 80) + "@x" // 1,042 bytes: the key is cut
        _ = try await users.add(object: User(id: "1", email: stem + "a", first: "Ada"))
        _ = try await users.add(object: User(id: "2", email: stem + "b", first: "Bob"))
        try await fixture.expectViolation(of: "email", showing: ["@xa"]) {
            _ = try await users.put(id: "2", object: User(id: "2", email: stem + "a", first: "Bob"))
        }
        _ = try await users.put(id: "2", object: User(id: "2", email: stem + "c", first: "Bob"))
        try expectConsistent(fixture.store)
    }

    // MARK: check()

    /// Writes `object` as a record with its index entries straight through the LMDB layer, as a
    /// write that skipped the unique check would have.
    static func plant<Object: Encodable>(_ object: Object, id: String, in storage: CollectionTable, of store: DataStore)
        throws
    {
        let prepared = try storage.prepare(try DocumentEncoder().encode(object), id: .string(id))
        var record: [UInt8] = []
        RecordVersion.append(1, to: &record)
        record += prepared.body
        try store.environment.write { transaction in
            try transaction.put(record, forKey: prepared.key, in: storage.records)
            for index in storage.indexes {
                for entry in try prepared.entries(of: index, collection: storage.name) {
                    try transaction.put([], forKey: entry.key, in: index.database)
                }
            }
        }
    }

    @Test("check() reports two records holding one unique value, naming index, value and both ids")
    func checkReportsPlantedDuplicate() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        _ = try await fixture.users.add(object: User(id: "1", email: "a@x", first: "Ada"))
        _ = try await fixture.users.add(object: User(id: "2", email: "b@x", first: "Bob"))
        try expectConsistent(fixture.store)
        try Self.plant(User(id: "3", email: "a@x", first: "Cy"), id: "3", in: fixture.users.storage, of: fixture.store)

        let problems = try fixture.store.check()
        #expect(problems.count == 1, "\(problems)")
        let problem = try #require(problems.first)
        #expect(problem.collection == "users" && problem.index == "email", "\(problem)")
        for part in ["a@x", "\"1\"", "\"3\""] {
            #expect(problem.message.contains(part), "\(problem)")
        }
        #expect(try fixture.users.check() == problems)
    }

    @Test(
        "check() reports a duplicate in a compound unique index, and one behind cut keys only when the real values are equal"
    )
    func checkComparesRealValues() async throws {
        let fixture = try await Fixture()
        defer { fixture.temporary.remove() }
        let stem = String(repeating: "long address ", count: 80) + "@x"
        _ = try await fixture.users.add(object: User(id: "1", email: stem + "a", first: "Ada", last: "Lovelace"))
        // Cut keys equal, real values different: allowed on write, and no problem for check().
        _ = try await fixture.users.add(object: User(id: "2", email: stem + "b", first: "Bob"))
        try expectConsistent(fixture.store)

        try Self.plant(
            User(id: "3", email: stem + "a", first: "Ada", last: "Lovelace"), id: "3", in: fixture.users.storage,
            of: fixture.store)
        let problems = try fixture.store.check()
        #expect(problems.count == 2, "\(problems)")
        let email = problems.first { $0.index == "email" }
        #expect(
            email?.message.contains("@xa\")") == true && email?.message.contains("\"1\", \"3\"") == true, "\(problems)")
        let fullName = problems.first { $0.index == "full_name" }
        #expect(
            fullName?.message.contains("(\"Ada\", \"Lovelace\")") == true
                && fullName?.message.contains("\"1\", \"3\"") == true,
            "\(problems)")
    }

    @Test("check() reports a duplicate element of a unique multi-value index; missing values are not duplicates")
    func checkMultiValueAndMissing() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        struct Tagged: Codable, Equatable, Sendable {
            var id: String
            var tags: [String]?
        }
        let items = try await temporary.store.collection(
            Tagged.self, name: "tagged", idField: "id",
            indexes: [
                IndexDefinition("tags", multiValue: true),
                IndexDefinition("codes", fields: ["tags"], unique: true, multiValue: true)
            ])
        _ = try await items.add(object: Tagged(id: "1", tags: ["a", "b"]))
        _ = try await items.add(object: Tagged(id: "2", tags: nil))
        _ = try await items.add(object: Tagged(id: "3", tags: nil))
        try expectConsistent(temporary.store)
        try Self.plant(Tagged(id: "4", tags: ["c", "b"]), id: "4", in: items.storage, of: temporary.store)
        let problems = try temporary.store.check()
        #expect(problems.count == 1, "\(problems)")
        #expect(
            problems.first?.index == "codes" && problems.first?.message.contains("(\"b\")") == true
                && problems.first?.message.contains("\"1\", \"4\"") == true, "\(problems)")
    }
}
