import DataStoreCore
import Foundation
import Testing
@testable import DataStoreKit

/// A visit that writes and reads its own records (``RecordEncodable``, ``RecordDecodable``); it is
/// `Codable` too, so the same objects can be stored through documents and the two paths compared.
struct Visit: Codable, Equatable, Sendable, RecordDecodable, RecordEncodable {
    var id: String
    var place: String
    var created_ts: Double
    var tags: [String]

    init(id: String, place: String, created_ts: Double, tags: [String]) {
        (self.id, self.place, self.created_ts, self.tags) = (id, place, created_ts, tags)
    }

    init(record: borrowing RecordFields) throws {
        id = try record.string("id") ?? ""
        place = try record.string("place") ?? ""
        created_ts = try record.double("created_ts") ?? 0
        tags = try record.value("tags")?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    func encode(to record: inout RecordWriter) throws {
        // Out of name order, as a type's own code would write them.
        try record.write(.array(tags.map { .string($0) }), for: "tags")
        record.write(id, for: "id")
        record.write(created_ts, for: "created_ts")
        record.write(place, for: "place")
    }
}

/// A counter identified by an integer, which it writes itself.
struct Tally: Equatable, Sendable, RecordDecodable, RecordEncodable {
    var id: Int
    var count: Int

    init(id: Int, count: Int) { (self.id, self.count) = (id, count) }

    init(record: borrowing RecordFields) throws {
        id = Int(try record.int("id") ?? 0)
        count = Int(try record.int("count") ?? 0)
    }

    func encode(to record: inout RecordWriter) throws {
        record.write(count, for: "count")
        record.write(id, for: "id")
    }
}

/// An object that writes exactly the fields it is given, in the order given: for records no
/// `Codable` type would produce.
struct WrittenFields: Sendable, RecordDecodable, RecordEncodable {
    var fields: [(name: String, value: Value)]

    init(_ fields: [(name: String, value: Value)]) { self.fields = fields }

    init(record: borrowing RecordFields) throws {
        fields = try record.value("id").map { [("id", $0)] } ?? []
    }

    func encode(to record: inout RecordWriter) throws {
        for field in fields { try record.write(field.value, for: field.name) }
    }
}

func visit(_ id: String, place: String = "park", ts: Double = 100, tags: [String] = []) -> Visit {
    Visit(id: id, place: place, created_ts: ts, tags: tags)
}

@Suite("Record mapping in collections and contexts")
struct RecordMappingTests {
    private static let indexes = [
        IndexDefinition("created_ts"),
        IndexDefinition("tags", multiValue: true),
        IndexDefinition("by_place", fields: ["place", .descending("created_ts")])
    ]

    private func openVisits(
        _ store: DataStore, name: String = "Visit",
        mapping: ObjectMapping<Visit> = .record(idField: "id")
    ) async throws -> StoreCollection<Visit> {
        try await store.collection(name, mapping: mapping, indexes: Self.indexes)
    }

    /// Every key of every index of `collection`, by index name, in key order.
    private func indexKeys<Object>(_ collection: StoreCollection<Object>) throws -> [String: [[UInt8]]] {
        try collection.store.environment.read { transaction in
            var keys: [String: [[UInt8]]] = [:]
            for index in collection.storage.indexes {
                keys[index.name] = try transaction.withCursor(on: index.database) { cursor in
                    var found: [[UInt8]] = []
                    while let entry = try cursor.move(.next) { found.append(entry.key) }
                    return found
                }
            }
            return keys
        }
    }

    // MARK: Collections

    @Test("add, get, put, remove and query round-trip objects that write their own records")
    func roundTrip() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let first = visit("v1", ts: 1, tags: ["red", "blue"])
        #expect(try await visits.add(object: first) == first) // its id was kept: the caller's object comes back
        _ = try await visits.add(object: visit("v2", place: "museum", ts: 2, tags: ["blue"]))
        #expect(try await visits.get(id: "v1") == first)
        // The stored document is the one RecordWriter wrote, field for field.
        #expect(try visits.document(id: "v1").map(RecordCodec.encode) == (try first.recordBytes()))

        let changed = visit("v1", place: "zoo", ts: 5, tags: ["green"])
        #expect(try await visits.put(id: "v1", object: changed) == changed)
        #expect(try await visits.get(id: "v1") == changed)
        #expect(try await visits.query(params: ["tags": "blue"], options: nil).map(\.id) == ["v2"])
        #expect(try await visits.query(params: ["tags": "green"], options: nil).map(\.id) == ["v1"])
        #expect(
            try await visits.query(params: ["created_ts >=": 2], options: ["sort": ["-created_ts"]]).map(\.id) == [
                "v1", "v2"
            ])
        #expect(try await visits.query(params: ["place": "museum"], options: nil).map(\.id) == ["v2"])

        #expect(try await visits.remove(id: "v1") == changed)
        #expect(try await visits.all().map(\.id) == ["v2"])
        #expect(try await visits.query(params: ["tags": "green"], options: nil).isEmpty)
        let missing = await #expect(throws: DataStoreError.self) { try await visits.get(id: "v1") }
        #expect(missing?.code == .notFound)
        try expectConsistent(temporary.store)
    }

    @Test("add of an object without an id (an empty string) generates one, and the returned object carries it")
    func generatedID() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let added = try await visits.add(object: visit("", ts: 7, tags: ["red"]))
        #expect(added.id.count == 26) // IDGenerator's ids
        #expect(added == visit(added.id, ts: 7, tags: ["red"]))
        #expect(try await visits.get(id: .string(added.id)) == added)
        #expect(try visits.document(id: .string(added.id))?["id"] == .string(added.id))
        // Its index entries carry the generated id, not the empty one.
        #expect(try await visits.query(params: ["tags": "red"], options: nil) == [added])
        try expectConsistent(temporary.store)
    }

    @Test("put(id:) under an id other than the object's own stores it under the given id and returns it so")
    func putUnderAnotherID() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let stored = try await visits.put(id: "given", object: visit("own", ts: 3, tags: ["x"]))
        #expect(stored == visit("given", ts: 3, tags: ["x"]))
        #expect(try await visits.get(id: "given") == stored)
        #expect(try visits.document(id: "given")?["id"] == "given") // the record says what its key says
        let own = await #expect(throws: DataStoreError.self) { try await visits.get(id: "own") }
        #expect(own?.code == .notFound)
        #expect(try await visits.query(params: ["tags": "x"], options: nil).map(\.id) == ["given"])
        try expectConsistent(temporary.store)
    }

    @Test("put(contentsOf:) with an object without an id throws invalidID and writes none of the batch")
    func putContentsWithoutID() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let error = await #expect(throws: DataStoreError.self) {
            try await visits.put(contentsOf: [visit("a"), visit(""), visit("b")])
        }
        #expect(error?.code == .invalidID)
        #expect(try visits.count() == 0)
        #expect(try indexKeys(visits).values.allSatisfy(\.isEmpty))
        // The same batch with ids is stored whole, replacing as put does.
        #expect(try await visits.put(contentsOf: [visit("a", ts: 1), visit("b", ts: 2)]) == ["a", "b"])
        #expect(try await visits.put(contentsOf: [visit("a", ts: 9)]) == ["a"])
        #expect(try await visits.get(id: "a").created_ts == 9)
        try expectConsistent(temporary.store)
    }

    @Test("add(contentsOf:) stores every object, keeping given ids and generating missing ones")
    func addContents() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let ids = try await visits.add(contentsOf: [
            visit("a", ts: 1, tags: ["t"]), visit("", ts: 2, tags: ["t"]), visit("c", ts: 3)
        ])
        #expect(ids.count == 3 && ids[0] == "a" && ids[2] == "c")
        let generated = try #require(ids[1].stringValue)
        #expect(generated.count == 26)
        #expect(try await visits.get(id: ids[1]) == visit(generated, ts: 2, tags: ["t"]))
        #expect(Set(try await visits.query(params: ["tags": "t"], options: nil).map(\.id)) == ["a", generated])
        // All or nothing: a duplicate id in a later batch stores none of it.
        let duplicate = await #expect(throws: DataStoreError.self) {
            try await visits.add(contentsOf: [visit("d"), visit("a")])
        }
        #expect(duplicate?.code == .duplicateID)
        #expect(try visits.count() == 3)
        try expectConsistent(temporary.store)
    }

    @Test("an integer id written by the object is stored as an integer and found by get(id: 5)")
    func integerID() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let tallies = try await temporary.store.collection("Tally", mapping: ObjectMapping<Tally>.record(idField: "id"))
        #expect(try await tallies.add(object: Tally(id: 5, count: 1)) == Tally(id: 5, count: 1))
        _ = try await tallies.add(object: Tally(id: 40_000, count: 2)) // an int32 in the record
        #expect(try await tallies.get(id: 5) == Tally(id: 5, count: 1))
        #expect(try await tallies.get(id: .double(5)) == Tally(id: 5, count: 1)) // 5.0 finds 5, as for every id
        let storedID = try #require(try tallies.document(id: 5)?["id"])
        #expect(storedID == 5 && storedID.typeName == Value.int(5).typeName) // an integer, not "5" or 5.0
        let asString = await #expect(throws: DataStoreError.self) { try await tallies.get(id: "5") }
        #expect(asString?.code == .notFound)
        #expect(try await tallies.put(id: 5, object: Tally(id: 5, count: 9)) == Tally(id: 5, count: 9))
        #expect(try await tallies.all() == [Tally(id: 5, count: 9), Tally(id: 40_000, count: 2)])
        let context = temporary.store.newContext()
        try context.add(Tally(id: 6, count: 3), to: tallies)
        #expect(try context.get(id: 6, from: tallies) == Tally(id: 6, count: 3))
        try await context.save()
        #expect(try await tallies.get(id: 6) == Tally(id: 6, count: 3))
        try expectConsistent(temporary.store)
    }

    // MARK: Index entries from record bytes

    /// The same writes, through every path, on `visits`.
    private func populate(_ visits: StoreCollection<Visit>) async throws {
        let long = String(repeating: "l", count: 600) // longer than an index component: truncated
        _ = try await visits.add(object: visit("a", place: "park", ts: 1, tags: ["red", "red", "blue"]))
        _ = try await visits.add(object: visit("b", place: "", ts: -0.0, tags: []))
        _ = try await visits.put(id: "c", object: visit("c", place: "caf\u{E9}", ts: 3.0, tags: ["😀", long]))
        _ = try await visits.put(id: "d", object: visit("other", place: "cafe\u{301}", ts: 1e300, tags: ["e\u{301}"]))
        try await visits.add(contentsOf: [
            visit("e", place: long, ts: 2.5, tags: ["blue"]), visit("f", place: "park", ts: -7, tags: ["green"])
        ])
        try await visits.put(contentsOf: [visit("a", place: "zoo", ts: 4, tags: ["green", "red"]), visit("g", ts: 1)])
        let context = visits.store.newContext()
        try context.add(visit("h", place: "park", ts: 8, tags: ["red"]), to: visits)
        try context.put(id: "b", object: visit("b", place: "museum", ts: 0, tags: ["blue"]), in: visits)
        try context.remove(id: "f", from: visits)
        try await context.save()
    }

    @Test("index entries read from record bytes are those computed from documents: same keys, plans and answers")
    func recordAndDocumentPathsAgree() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let recorded = try await openVisits(temporary.store, name: "Recorded")
        let coded = try await openVisits(temporary.store, name: "Coded", mapping: .codable(idField: "id"))
        try await populate(recorded)
        try await populate(coded)

        let keys = try indexKeys(recorded)
        #expect(keys.count == 3)
        #expect(keys.values.allSatisfy { !$0.isEmpty })
        #expect(keys == (try indexKeys(coded)))
        #expect(
            try recorded.documents(matching: Query()).map(RecordCodec.encode)
                == (try coded.documents(matching: Query()).map(RecordCodec.encode)))

        let queries: [([String: Value], [String: Value]?)] = [
            (["created_ts >=": 1], ["sort": ["created_ts"]]),
            (["created_ts <": 3], nil),
            (["tags": "red"], nil),
            (["tags": "blue"], nil),
            (["tags": "e\u{301}"], nil),
            (["place": "park"], ["sort": ["-created_ts"]]),
            (["place": "caf\u{E9}"], nil),
            (["place": .string(String(repeating: "l", count: 600))], nil)
        ]
        for (params, options) in queries {
            let plan = try recorded.explain(params: params, options: options)
            #expect(plan.access == (try coded.explain(params: params, options: options)).access, "\(params)")
            #expect(
                plan.description.replacingOccurrences(of: "Recorded", with: "Coded")
                    == (try coded.explain(params: params, options: options)).description, "\(params)")
            let answer = try await recorded.query(params: params, options: options)
            #expect(answer == (try await coded.query(params: params, options: options)), "\(params)")
            #expect(!answer.isEmpty, "\(params) finds nothing: the comparison proves little")
        }
        try expectConsistent(temporary.store)
    }

    // MARK: Contexts

    @Test("a context stages a record-written object: get and query see it before save, and save persists it")
    func contextStaging() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        _ = try await visits.add(object: visit("stored", ts: 1, tags: ["red"]))
        let context = temporary.store.newContext()
        let staged = visit("staged", ts: 5, tags: ["red", "blue"])
        #expect(try context.add(staged, to: visits) == staged)
        let generated = try context.add(visit("", ts: 6), to: visits)
        #expect(generated.id.count == 26)
        #expect(try context.put(id: "other", object: visit("x", ts: 7), in: visits).id == "other")

        #expect(context.hasChanges)
        #expect(try context.get(id: "staged", from: visits) == staged)
        #expect(try context.get(id: .string(generated.id), from: visits) == generated)
        #expect(try context.query(visits, params: ["tags": "red"]).map(\.id).sorted() == ["staged", "stored"])
        #expect(
            try context.query(visits, params: ["created_ts >=": 5], options: ["sort": ["created_ts"]]).map(\.id)
                == ["staged", generated.id, "other"])
        await #expect(throws: DataStoreError.self) { try await visits.get(id: "staged") } // not saved yet

        try await context.save()
        #expect(!context.hasChanges)
        #expect(try await visits.get(id: "staged") == staged)
        #expect(try await visits.get(id: .string(generated.id)) == generated)
        #expect(try await visits.get(id: "other") == visit("other", ts: 7))
        #expect(try await visits.query(params: ["tags": "blue"], options: nil).map(\.id) == ["staged"])
        try expectConsistent(temporary.store)
    }

    @Test("a second add of the same id in one context is a duplicateID error, and the first stays staged")
    func contextDuplicate() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let visits = try await openVisits(temporary.store)
        let context = temporary.store.newContext()
        try context.add(visit("v", ts: 1), to: visits)
        let duplicate = #expect(throws: DataStoreError.self) { try context.add(visit("v", ts: 2), to: visits) }
        #expect(duplicate?.code == .duplicateID)
        #expect(try context.get(id: "v", from: visits).created_ts == 1)
        try await context.save()
        #expect(try await visits.get(id: "v").created_ts == 1)
    }

    @Test("an array in a single-value indexed field fails at add, naming the field, and stages or stores nothing")
    func arrayInSingleValueIndex() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        // `tags` is always an array, so a single-value index on it refuses every visit.
        let visits = try await temporary.store.collection(
            "Visit", mapping: ObjectMapping<Visit>.record(idField: "id"),
            indexes: [IndexDefinition("tags")])
        let context = temporary.store.newContext()
        let error = #expect(throws: DataStoreError.self) { try context.add(visit("v", tags: ["a"]), to: visits) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("tags") == true)
        #expect(!context.hasChanges)
        #expect(throws: DataStoreError.self) { try context.get(id: "v", from: visits) }

        let direct = await #expect(throws: DataStoreError.self) { try await visits.add(object: visit("v", tags: [])) }
        #expect(direct?.code == .invalidValue)
        #expect(direct?.message.contains("tags") == true)
        #expect(try visits.count() == 0)
    }

    // MARK: Records no document would make

    @Test("an object writing two canonically equivalent names is refused at add; nothing unreadable is stored")
    func canonicallyEquivalentNamesAreRefused() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let objects = try await temporary.store.collection(
            "Written", mapping: ObjectMapping<WrittenFields>.record(idField: "id"))
        // "é" as U+00E9 and as e + U+0301: one field of a Document, which RecordCodec.decode refuses twice.
        let object = WrittenFields([("id", "w"), ("\u{E9}", 1), ("e\u{301}", 2)])
        // Under another id the record goes through a document, and is refused there.
        let throughDocument = await #expect(throws: DataStoreError.self) {
            _ = try await objects.put(id: "x", object: object)
        }
        #expect(throughDocument?.code == .invalidValue)
        // Under its own id nothing is decoded: the writer's bytes must be refused all the same.
        let kept = await #expect(throws: DataStoreError.self) { _ = try await objects.add(object: object) }
        #expect(kept == nil || kept?.code == .invalidValue)
        #expect(try objects.count() == 0, "a record that RecordCodec.decode refuses was stored")
        #expect(throws: Never.self) { _ = try objects.documents(matching: Query()) }
        let problems = try temporary.store.check()
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test(
        "a field spelled canonically equal to, but not byte-equal to, an index field gets the entries a document gives it"
    )
    func indexFieldSpelledOtherwise() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        // The index names "é" as U+00E9; the object writes e + U+0301. A Document finds one by the
        // other (its keys are Swift Strings), so the document path — and DataStore.check(), which
        // recomputes entries from documents — index the value 5. Entries read from the record's
        // bytes must be the same, or the same object is indexed differently depending on the path.
        let objects = try await temporary.store.collection(
            "Written", mapping: ObjectMapping<WrittenFields>.record(idField: "id"),
            indexes: [IndexDefinition("\u{E9}")])
        // Kept id: entries read from the bytes. Another id: the record goes through a document.
        _ = try await objects.add(object: WrittenFields([("id", "w"), ("e\u{301}", 5)]))
        _ = try await objects.put(id: "v", object: WrittenFields([("id", "other"), ("e\u{301}", 5)]))
        let problems = try temporary.store.check()
        #expect(problems.isEmpty, "index entries from the record differ from the document's: \(problems)")
    }

    @Test(
        "an index named by a non-ASCII name equal to an ASCII field name (Kelvin sign, K) gets the document's entries")
    func indexNameSpelledOtherwise() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        // "\u{212A}" == "K" for Swift strings (and Document keys), but not byte for byte.
        let objects = try await temporary.store.collection(
            "Written", mapping: ObjectMapping<WrittenFields>.record(idField: "id"),
            indexes: [IndexDefinition("\u{212A}")])
        _ = try await objects.add(object: WrittenFields([("id", "w"), ("K", 5)]))
        let problems = try temporary.store.check()
        #expect(problems.isEmpty, "index entries from the record differ from the document's: \(problems)")
    }
}
