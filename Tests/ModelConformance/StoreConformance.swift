// One battery of store-level checks, written against the contract every store keeps
// (DocumentStore, DocumentCollection, UnitOfWork), run against the LMDB store and PostgreSQL.
import DataStoreCore
public import DataStoreEngine
import Foundation
import Synchronization
import TestSupport
public import Testing

/// A user of the battery: a fresh store for each scenario, and a collection name no other test uses.
public struct StoreUnderTest: Sendable {
    /// The store.
    public let store: any DocumentStore
    /// A prefix for the collections this scenario makes (the server may be shared by other tests).
    public let prefix: String

    public init(store: any DocumentStore, prefix: String) {
        self.store = store
        self.prefix = prefix
    }

    /// A collection name of this scenario's own.
    public func name(_ base: String) -> String { "\(prefix)-\(base)" }
}

/// One named check of the store battery.
public struct StoreScenario: Sendable, CustomStringConvertible, CustomTestStringConvertible {
    public let name: String
    public let run: @Sendable (StoreUnderTest) async throws -> Void

    public init(_ name: String, _ run: @escaping @Sendable (StoreUnderTest) async throws -> Void) {
        self.name = name
        self.run = run
    }

    public var description: String { name }
    public var testDescription: String { name }
}

/// A user of a chat service, with a nested field, stored through `Codable`.
public struct ChatUser: Codable, Sendable, Equatable {
    public struct Profile: Codable, Sendable, Equatable {
        public var city: String
        public var languages: [String]
    }
    public var id: String
    public var name: String
    public var profile: Profile
    public var last_seen: Double

    public init(id: String, name: String, city: String, languages: [String] = ["en"], lastSeen: Double = 0) {
        self.id = id
        self.name = name
        self.profile = Profile(city: city, languages: languages)
        self.last_seen = lastSeen
    }
}

/// The store battery: what every store does alike, or refuses alike with a typed error.
public enum StoreConformance {
    public static let scenarios: [StoreScenario] =
        [
            declarations, redefinitions, unknownFields, concurrentUpdates, pathUpdates, removeByQuery, storedDocuments,
            unitsOfWork,
            childUnits,
            conflicts, foreignCollections, changeFeed, observation, unchangedObservation, badNames, tooLarge, pages,
            pageRefusals, streams,
            snapshots, preparedQueries, migrations, migrationsOnAnEmptyStore, coveringIndexes, check
        ] + transactions

    static let plain = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// A `Codable` collection of users with indexes on a nested field and a multi-value one.
    static func users(_ sut: StoreUnderTest) async throws -> any DocumentCollection<ChatUser> {
        try await sut.store.collection(
            ChatUser.self, name: sut.name("users"), idField: "id",
            indexes: [
                IndexDefinition("city", fields: ["profile.city"]),
                IndexDefinition("languages", fields: ["profile.languages"], multiValue: true)
            ])
    }

    static let declarations = StoreScenario("a declaration creates the collection, builds and reports its indexes") {
        sut in
        let users = try await users(sut)
        #expect(users.indexes.map(\.name) == ["city", "languages"])
        #expect(try sut.store.collectionNames().contains(sut.name("users")))
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        try await sut.store.addIndex(IndexDefinition("name"), to: sut.name("users"), buildChunk: 10)
        let again = try await sut.store.documentCollection(sut.name("users"))
        #expect(again.indexes.map(\.name).contains("name"))
        #expect(try again.explain(params: ["name": "Ann"], options: nil).description.contains("index scan of name"))
        let dropped = try await sut.store.dropIndex(named: "name", from: sut.name("users"))
        #expect(dropped.name == "name")
        // Declared again without one of its indexes: kept, reported as undeclared.
        let fewer = try await sut.store.collection(
            ChatUser.self, name: sut.name("users"), idField: "id",
            indexes: [IndexDefinition("city", fields: ["profile.city"])])
        #expect(fewer.undeclaredIndexes.map(\.name) == ["languages"])
    }

    static let redefinitions = StoreScenario(
        "an index declared again with other options is refused naming both, unless the declaration is the whole list"
    ) { sut in
        let name = sut.name("redefined")
        let items = try await sut.store.collection(
            name, mapping: plain, indexes: [IndexDefinition("email", unique: true)])
        _ = try await items.add(contentsOf: [["id": "a", "email": "x"], ["id": "b", "email": "y"]])
        await #expect {
            _ = try await sut.store.collection(name, mapping: plain, indexes: [IndexDefinition("email")])
        } throws: {
            guard let error = $0 as? DataStoreError else { return false }
            return error.code == .schemaMismatch && error.message.contains("email(email, unique)")
                && error.message.contains("undeclaredIndexes: .drop")
        }
        #expect(try await sut.store.documentCollection(name).indexes == [IndexDefinition("email", unique: true)])
        let rebuilt = try await sut.store.collection(
            name, mapping: plain, indexes: [IndexDefinition("email")], undeclaredIndexes: .drop)
        #expect(rebuilt.indexes == [IndexDefinition("email")])
        _ = try await rebuilt.add(object: ["id": "c", "email": "x"])
        #expect(try await rebuilt.count(params: ["email": "x"]) == 2)
    }

    static let unknownFields = StoreScenario("update keeps and stores fields the Codable type does not name") { sut in
        let users = try await users(sut)
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        let updated = try await users.update(id: "u1", set: ["last_seen": 5, "nickname": "annie"], unset: [])
        #expect(updated.last_seen == 5)
        let stored = try await users.document(id: "u1")
        #expect(stored?["nickname"] == "annie", "\(String(describing: stored))")
        let raw = try await sut.store.documentCollection(sut.name("users"))
        #expect(try await raw.count(params: ["nickname": "annie"]) == 1)
        // A later put through the type keeps only what the type holds, as put replaces.
        _ = try await users.put(id: "u1", object: ChatUser(id: "u1", name: "Ann", city: "Milan"))
        #expect(try await users.document(id: "u1")?["nickname"] == nil)
    }

    static let concurrentUpdates = StoreScenario("concurrent updates of different fields of one object all land") {
        sut in
        let counters = try await sut.store.collection(sut.name("counters"), mapping: plain)
        _ = try await counters.add(object: ["id": "hot"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for field in 0..<16 {
                group.addTask {
                    _ = try await counters.update(id: "hot", set: ["f\(field)": .int(Int64(field))], unset: [])
                }
            }
            try await group.waitForAll()
        }
        let stored = try await counters.get(id: "hot")
        #expect((0..<16).allSatisfy { stored["f\($0)"] == .int(Int64($0)) }, "\(stored)")
    }

    static let pathUpdates = StoreScenario(
        "updates by path: a nested field set in place, concurrent increments all land, a unit of work alike"
    ) { sut in
        let users = try await users(sut)
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        let moved = try await users.update(id: "u1", set: ["profile.city": "Milan"], unset: [])
        #expect(moved.profile.city == "Milan" && moved.profile.languages == ["en"])
        let stored = try await users.document(id: "u1")
        #expect(stored?["profile.city"] == nil, "no top-level field named with a dot: \(String(describing: stored))")
        #expect(try await users.query(params: ["profile.city": "Milan"], options: nil).map(\.id) == ["u1"])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask { _ = try await users.update(id: "u1", FieldUpdate(increment: ["last_seen": 1])) }
            }
            try await group.waitForAll()
        }
        #expect(try await users.get(id: "u1").last_seen == 16)
        let unit = sut.store.newContext(policy: .detect)
        _ = try unit.update(id: "u1", FieldUpdate(append: ["profile.languages": ["it"]]), in: users)
        #expect(try unit.get(id: "u1", from: users).profile.languages == ["en", "it"])
        _ = try await unit.save()
        #expect(try await users.get(id: "u1").profile.languages == ["en", "it"])
        await #expect { _ = try await users.update(id: "u1", set: ["name.first": "A"], unset: []) } throws: {
            ($0 as? DataStoreError)?.code == .invalidValue && "\($0)".contains("name.first")
        }
        #expect(try await users.get(id: "u1").name == "Ann")
    }

    static let removeByQuery = StoreScenario("remove(params:) removes every match in one change set") { sut in
        let messages = try await sut.store.collection(
            sut.name("messages"), mapping: plain, indexes: [IndexDefinition("room")])
        _ = try await messages.add(contentsOf: (0..<30).map { ["id": .string("m\($0)"), "room": .int(Int64($0 % 3))] })
        let feedStart = try await commit(inserting: "m0", into: sut.name("messages"), of: sut.store)
        #expect(try await messages.remove(params: ["room": 1]) == 10)
        #expect(try await messages.count(params: [:]) == 20)
        #expect(try await messages.count(params: ["room": 1]) == 0)
        // One commit records the ten removals.
        let events = try await commits(sut.store, after: feedStart, in: sut.name("messages"), atLeast: 1)
        #expect(events.count == 1 && events.first?.removed.count == 10, "\(events)")
    }

    static let storedDocuments = StoreScenario("document(id:) returns the stored document, or nil") { sut in
        let items = try await sut.store.collection(sut.name("items"), mapping: plain)
        _ = try await items.add(object: ["id": "a", "n": 1, "nested": ["x": true]])
        #expect(try await items.document(id: "a") == ["id": "a", "n": 1, "nested": ["x": true]])
        #expect(try await items.document(id: "b") == nil)
    }

    static let unitsOfWork = StoreScenario("a unit of work reads its own staged writes and saves them as one commit") {
        sut in
        let users = try await users(sut)
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        let unit = sut.store.newContext(policy: .detect)
        var ann = try unit.get(id: "u1", from: users)
        ann.last_seen = 7
        _ = try unit.put(id: "u1", object: ann, in: users)
        _ = try unit.add(ChatUser(id: "u2", name: "Bob", city: "Rome"), to: users)
        _ = try unit.update(id: "u2", set: ["profile": ["city": "Milan", "languages": ["it"]]], unset: [], in: users)
        #expect(try unit.get(id: "u1", from: users).last_seen == 7)
        #expect(try unit.query(users, params: ["profile.city": "Milan"], options: nil).map(\.id) == ["u2"])
        #expect(try await users.count(params: [:]) == 1)
        let commit = try await unit.save()
        #expect(commit != nil)
        #expect(try await users.get(id: "u2").profile.city == "Milan")
        #expect(try await users.get(id: "u1").last_seen == 7)
        #expect(!unit.hasChanges)
    }

    static let childUnits = StoreScenario("a child's save reaches only its parent; the parent's save reaches the store")
    { sut in
        let users = try await users(sut)
        let parent = sut.store.newContext(policy: .detect)
        let child = parent.newChild()
        _ = try child.add(ChatUser(id: "c1", name: "Cy", city: "Oslo"), to: users)
        #expect(try await child.save() == nil)
        #expect(try parent.get(id: "c1", from: users).name == "Cy")
        #expect(try await users.count(params: [:]) == 0)
        _ = try await parent.save()
        #expect(try await users.count(params: [:]) == 1)
    }

    static let conflicts = StoreScenario(
        "a record changed underneath a unit of work fails its save as .conflict, writing nothing"
    ) { sut in
        let users = try await users(sut)
        _ = try await users.add(object: ChatUser(id: "u1", name: "Ann", city: "Rome"))
        let unit = sut.store.newContext(policy: .detect)
        var ann = try unit.get(id: "u1", from: users)
        _ = try await users.update(id: "u1", set: ["name": "Anne"], unset: [])
        ann.last_seen = 9
        _ = try unit.put(id: "u1", object: ann, in: users)
        _ = try unit.add(ChatUser(id: "u2", name: "Bob", city: "Rome"), to: users)
        await #expect { try await unit.save() } throws: { ($0 as? DataStoreError)?.code == .conflict }
        #expect(try await users.get(id: "u1").name == "Anne")
        #expect(try await users.count(params: [:]) == 1)
        // Last writer wins, when asked for.
        let wins = sut.store.newContext(policy: .lastWriterWins)
        _ = try wins.put(id: "u1", object: ann, in: users)
        _ = try await wins.save()
        #expect(try await users.get(id: "u1").last_seen == 9)
    }

    static let foreignCollections = StoreScenario("a unit of work refuses another store's collection") { sut in
        let other = ReferenceCollection()
        let unit = sut.store.newContext(policy: .detect)
        #expect { _ = try unit.add(["id": "x"], to: other) } throws: { ($0 as? DataStoreError)?.code == .invalidValue }
    }

    static let changeFeed = StoreScenario(
        "the change feed lists each commit's inserts, updates and removals, resumably"
    ) { sut in
        let items = try await sut.store.collection(sut.name("feed"), mapping: plain)
        let start = try await latestCommit(sut.store)
        _ = try await items.add(object: ["id": "a"])
        _ = try await items.put(id: "a", object: ["id": "a", "n": 1])
        _ = try await items.remove(id: "a")
        let events = try await commits(sut.store, after: start, in: sut.name("feed"), atLeast: 3)
        #expect(
            events.map { [$0.inserted.count, $0.updated.count, $0.removed.count] } == [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "\(events)")
    }

    static let observation = StoreScenario("an observation yields the current results, then the results after a change")
    { sut in
        let items = try await sut.store.collection(
            sut.name("observed"), mapping: plain, indexes: [IndexDefinition("room")])
        _ = try await items.add(object: ["id": "a", "room": 1])
        let observed = try items.observe(params: ["room": 1], options: nil)
        var iterator = observed.makeAsyncIterator()
        #expect(try await iterator.next()?.count == 1)
        _ = try await items.add(object: ["id": "b", "room": 1])
        var latest = try await iterator.next()
        // A commit's wake-up may come before another's: read until the change shows, within bounds.
        for _ in 0..<20 where latest?.count != 2 { latest = try await iterator.next() }
        #expect(latest?.count == 2)
    }

    static let unchangedObservation = StoreScenario(
        "an observation yields nothing while writes leave its results as they were, then the results that changed"
    ) { sut in
        let items = try await sut.store.collection(sut.name("observed-same"), mapping: plain)
        _ = try await items.add(object: ["id": "a", "room": 1])
        // With a limit, every commit to the collection runs the query again.
        let observed = try items.observe(params: ["room": 1], options: ["limit": 1])
        var iterator = observed.makeAsyncIterator()
        #expect(try await iterator.next()?.map { $0["id"] } == ["a"])
        let next = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()?.first?["n"]
        }
        _ = try await items.add(object: ["id": "b", "room": 2])
        _ = try await items.put(id: "a", object: ["id": "a", "room": 1])
        // Nothing to yield: the refreshes those writes cause find the same results.
        try await Task.sleep(for: .milliseconds(300))
        _ = try await items.put(id: "a", object: ["id": "a", "room": 1, "n": 7])
        #expect(try await next.value == 7)
    }

    static let badNames = StoreScenario("names with NUL or a slash are refused before anything is written") { sut in
        for bad in [sut.name("bad\u{0}x"), sut.name("a/b"), ""] {
            await #expect { _ = try await sut.store.collection(bad, mapping: plain) } throws: {
                ($0 as? DataStoreError)?.code == .schemaMismatch
            }
        }
        let names = try sut.store.collectionNames()
        #expect(!names.contains { $0.hasPrefix(sut.name("bad")) })
    }

    static let tooLarge = StoreScenario("a document over the default size bound is .tooLarge, nothing written") { sut in
        let items = try await sut.store.collection(sut.name("large"), mapping: plain)
        let large: Document = ["id": "big", "text": .string(String(repeating: "x", count: 64 << 20))]
        await #expect { _ = try await items.add(object: large) } throws: { ($0 as? DataStoreError)?.code == .tooLarge }
        #expect(try await items.count(params: [:]) == 0)
    }

    /// 40 items with an index on `n` (`n` = number mod 10, a run of 4 equal keys each) and a
    /// multi-value one on `tags`.
    static func pagedItems(_ sut: StoreUnderTest) async throws -> any DocumentCollection<Document> {
        let items = try await sut.store.collection(
            sut.name("paged"), mapping: plain,
            indexes: [IndexDefinition("n"), IndexDefinition("tags", multiValue: true)])
        _ = try await items.add(
            contentsOf: (0..<40).map { number -> Document in
                [
                    "id": .string(String(format: "p%02d", number)), "n": .int(Int64(number % 10)),
                    "tags": .array([.string("t\(number % 3)"), .string("t\(number % 5)")])
                ]
            })
        return items
    }

    /// Queries whose pages, streams and cursors must give exactly what `query` gives: sorted by an
    /// index both ways, unsorted over an index, a multi-value index (each document once), ids.
    static let pagedQueries: [(params: [String: Value], options: [String: Value])] = [
        (["n >=": 3], ["sort": "n"]),
        (["n <": 8], ["sort": "-n"]),
        (["n": 4], [:]),
        (["tags in": ["t1", "t2"]], [:]),
        (["tags": "t0"], [:]),
        ([:], [:]),
        (["id >=": "p10", "id <": "p30"], ["sort": "id"]),
        (["id in": ["p03", "p07", "p11"]], [:])
    ]

    static let pages = StoreScenario("pages of every size give exactly what the query gives, in order") { sut in
        let items = try await pagedItems(sut)
        for (params, options) in pagedQueries {
            let expected = try await items.query(params: params, options: options)
            #expect(!expected.isEmpty, "\(params)")
            for size in [1, 3, 7, 100] {
                var token: PageToken?
                var seen: [Document] = []
                var pages = 0
                repeat {
                    let page = try await items.page(params: params, options: options, size: size, after: token)
                    #expect(page.objects.count <= size)
                    seen += page.objects
                    token = page.next
                    pages += 1
                } while token != nil && pages <= 41
                #expect(seen == expected, "\(params) \(options) in pages of \(size)")
            }
        }
    }

    static let pageRefusals = StoreScenario("a page refuses a limit, a sort no index serves, and another query's token")
    { sut in
        let items = try await pagedItems(sut)
        let code: @Sendable (any Error) -> DataStoreError.Code? = { ($0 as? DataStoreError)?.code }
        await #expect { _ = try await items.page(params: [:], options: ["limit": 5], size: 3, after: nil) } throws: {
            code($0) == .invalidOption
        }
        await #expect {
            _ = try await items.page(params: [:], options: ["sort": "name"], size: 3, after: nil)
        } throws: {
            code($0) == .invalidOption && "\($0)".contains("sort")
        }
        await #expect { _ = try await items.page(params: [:], options: nil, size: 0, after: nil) } throws: {
            code($0) == .invalidOption
        }
        let first = try await items.page(params: ["n >=": 3], options: ["sort": "n"], size: 3, after: nil)
        let token = try #require(first.next)
        await #expect {
            _ = try await items.page(params: ["n >=": 4], options: ["sort": "n"], size: 3, after: token)
        } throws: { code($0) == .invalidPageToken }
        #expect(throws: DataStoreError.self) { _ = try PageToken("not a token!") }
    }

    static let streams = StoreScenario("a stream gives what the query gives, offset and limit applied") { sut in
        let items = try await pagedItems(sut)
        for (params, options) in pagedQueries {
            var shaped = options
            shaped["offset"] = 2
            shaped["limit"] = 9
            for (pageSize, options) in [(4, options), (3, shaped)] {
                let expected = try await items.query(params: params, options: options)
                var seen: [Document] = []
                for try await document in try items.stream(params: params, options: options, pageSize: pageSize) {
                    seen.append(document)
                }
                #expect(seen == expected, "\(params) \(options) streamed \(pageSize) at a time")
            }
        }
        #expect { _ = try items.stream(params: [:], options: ["sort": "name"]) } throws: {
            ($0 as? DataStoreError)?.code == .invalidOption
        }
    }

    static let snapshots = StoreScenario("a read closure sees one snapshot; its cursors give what the query gives") {
        sut in
        let items = try await pagedItems(sut)
        var expected: [[Document]] = []
        for (params, options) in pagedQueries {
            expected.append(try await items.query(params: params, options: options))
        }
        let before = try await items.count(params: ["n": 4])
        // The closure is synchronous and may wait for a server: it runs on a thread of its own.
        let (walked, counted, got, afterwards) = try await onOwnThread {
            var escaped: (any Sequence<Document>)?
            let (walked, counted, got) = try items.read(batchSize: 3) { snapshot in
                escaped = try snapshot.documents(params: [:], options: nil)
                return (
                    try pagedQueries.map { try Array(snapshot.query(params: $0.params, options: $0.options)) },
                    try snapshot.count(params: ["n": 4]), try snapshot.get(id: "p04")
                )
            }
            // A cursor outlives its closure only to end at once.
            return (walked, counted, got, escaped.map { Array($0) })
        }
        #expect(walked == expected)
        #expect(counted == before)
        #expect(got["n"] == 4)
        #expect(afterwards == [])
    }

    static let preparedQueries = StoreScenario("a prepared query answers as the query with its values written in") {
        sut in
        let items = try await pagedItems(sut)
        let prepared = try items.prepareQuery(
            params: ["n >=": .parameter(.number), "tags": .parameter(.string)], options: ["sort": "n"])
        #expect(prepared.parameters == ["n >=", "tags"])
        for (low, tag) in [(2, "t1"), (7, "t4"), (0, "t9")] {
            let values: [String: Value] = ["n >=": .int(Int64(low)), "tags": .string(tag)]
            let expected = try await items.query(params: values, options: ["sort": "n"])
            #expect(try await prepared.run(values) == expected)
            #expect(try prepared.query(values) == Query(params: values, options: ["sort": "n"]))
        }
        await #expect { _ = try await prepared.run(["n >=": 1]) } throws: {
            ($0 as? DataStoreError)?.code == .invalidQuery
        }
    }

    static let migrations = StoreScenario(
        "a migrator runs each migration once, atomically, and its rewrites reach the change feed"
    ) { sut in
        let name = sut.name("migrated")
        let docs = try await sut.store.collection(name, mapping: plain)
        _ = try await docs.add(contentsOf: (0..<6).map { ["id": .string("d\($0)"), "old": .int(Int64($0))] })
        let start = try await commit(inserting: "d0", into: name, of: sut.store)
        var migrator = Migrator()
        migrator.registerMigration("\(name) v1: index old") { $0.addIndex(IndexDefinition("old"), to: name) }
        migrator.registerMigration("\(name) v2: rename old, drop odd") { migration in
            migration.renameField("old", to: "new", in: name)
            migration.transformDocuments(in: name) { document in
                (document["new"]?.intValue ?? 0) % 2 == 1 ? nil : document
            }
            migration.dropIndex(named: "old", from: name)
            migration.addIndex(IndexDefinition("new"), to: name)
        }
        #expect(try await migrator.migrate(sut.store) == ["\(name) v1: index old", "\(name) v2: rename old, drop odd"])
        #expect(try await migrator.migrate(sut.store) == [])
        #expect(try migrator.appliedMigrations(in: sut.store).count == 2)
        let after = try await sut.store.documentCollection(name)
        #expect(after.indexes.map(\.name) == ["new"])
        #expect(
            try await after.query(params: ["new >=": 0], options: ["sort": "new"]).map { $0["id"] } == [
                "d0", "d2", "d4"
            ])
        #expect(try after.explain(params: ["new": 2], options: nil).description.contains("index scan of new"))
        // The rewrite is one commit of the feed: three documents updated, three removed.
        let events = try await commits(sut.store, after: start, in: name, atLeast: 1)
        #expect(
            events.contains { Set($0.updated) == ["d0", "d2", "d4"] && Set($0.removed) == ["d1", "d3", "d5"] },
            "\(events)")

        // A migration that fails leaves the store as it was and records nothing; later ones do not run.
        var failing = migrator
        failing.registerMigration("\(name) v3: fails") { migration in
            migration.addIndex(IndexDefinition("late"), to: name)
            migration.transformDocuments(in: name) { document in
                guard document["id"] != "d4" else { throw DataStoreError(.invalidValue, "d4 refused") }
                var changed = document
                changed["late"] = true
                return changed
            }
        }
        failing.registerMigration("\(name) v4: never runs") { $0.dropIndex(named: "new", from: name) }
        await #expect { try await failing.migrate(sut.store) } throws: {
            guard let error = $0 as? DataStoreError else { return false }
            return error.code == .migrationFailed && error.message.contains("v3") && error.message.contains("v4")
        }
        #expect(try failing.appliedMigrations(in: sut.store).count == 2)
        let unchanged = try await sut.store.documentCollection(name)
        #expect(unchanged.indexes.map(\.name) == ["new"])
        #expect(try await unchanged.count(params: ["late": true]) == 0)
        // A step naming a collection the store does not hold fails the same way.
        var missing = Migrator()
        missing.registerMigration("\(name) v5: missing") { $0.addIndex(IndexDefinition("x"), to: sut.name("absent")) }
        await #expect { try await missing.migrate(sut.store) } throws: {
            ($0 as? DataStoreError)?.code == .migrationFailed
        }
    }

    static let migrationsOnAnEmptyStore = StoreScenario(
        "a migrator sets up collections the store does not hold yet; a failed one leaves none behind"
    ) { sut in
        let name = sut.name("fresh")
        var migrator = Migrator()
        migrator.registerMigration("\(name) v1: create") { migration in
            migration.createCollection(name, idField: "key", indexes: [IndexDefinition("n")])
        }
        migrator.registerMigration("\(name) v2: index m") { $0.addIndex(IndexDefinition("m"), to: name) }
        #expect(try await migrator.migrate(sut.store).count == 2)
        let fresh = try await sut.store.documentCollection(name)
        #expect(fresh.mapping.idField == "key")
        #expect(fresh.indexes.map(\.name) == ["n", "m"])
        // Declared later as the migrations left it: nothing to build, nothing undeclared.
        let declared = try await sut.store.collection(
            name, mapping: .documents(idField: "key"), indexes: [IndexDefinition("n"), IndexDefinition("m")])
        #expect(declared.undeclaredIndexes.isEmpty)
        _ = try await declared.add(object: ["key": "k1", "n": 1, "m": 2])
        #expect(try await declared.count(params: ["m": 2]) == 1)

        var clash = Migrator()
        clash.registerMigration("\(name) v3: other id field") { $0.createCollection(name, idField: "id") }
        await #expect { try await clash.migrate(sut.store) } throws: {
            ($0 as? DataStoreError)?.code == .migrationFailed
        }
        let doomed = sut.name("doomed")
        var failing = Migrator()
        failing.registerMigration("\(doomed) v1") { migration in
            migration.createCollection(doomed)
            migration.dropIndex(named: "absent", from: doomed)
        }
        await #expect { try await failing.migrate(sut.store) } throws: {
            ($0 as? DataStoreError)?.code == .migrationFailed
        }
        #expect(try !sut.store.collectionNames().contains(doomed))
        // A step on a collection nobody created names the step that would.
        var missing = Migrator()
        missing.registerMigration("\(name) v4") { $0.addIndex(IndexDefinition("x"), to: sut.name("nowhere")) }
        await #expect { try await missing.migrate(sut.store) } throws: { "\($0)".contains("createCollection") }
    }

    static let coveringIndexes = StoreScenario("a covering index answers from its entries, or is refused by name") {
        sut in
        do {
            let items = try await sut.store.collection(
                sut.name("covered"), mapping: plain, indexes: [IndexDefinition("n", covering: .document)])
            _ = try await items.add(object: ["id": "a", "n": 1])
            #expect(try await items.query(params: ["n": 1], options: nil).count == 1)
        } catch let error as DataStoreError where error.code == .unsupported {
            #expect(error.message.contains("covering"), "\(error)")
            #expect(try !sut.store.collectionNames().contains(sut.name("covered")))
        }
    }

    static let check = StoreScenario("check finds nothing wrong in what the scenarios wrote") { sut in
        let users = try await users(sut)
        _ = try await users.add(contentsOf: (0..<20).map { ChatUser(id: "u\($0)", name: "n\($0)", city: "c\($0 % 3)") })
        #expect(try users.check().isEmpty)
    }

    /// The newest commit the store's feed has, or `nil` when it has none yet.
    static func latestCommit(_ store: any DocumentStore) async throws -> CommitID? {
        var last: CommitID?
        for try await event in try store.changes(after: nil).recordedSoFar { last = event.commit }
        return last
    }

    /// The commit that inserted `id` into `collection`, once the feed lists it: a position after
    /// which only later writes show (the newest commit listed so far may be older, while another
    /// test's open transaction holds a server's feed back).
    static func commit(inserting id: Value, into collection: String, of store: any DocumentStore) async throws
        -> CommitID?
    {
        for _ in 0..<200 {
            for try await event in try store.changes(after: nil).recordedSoFar
            where event.changes.contains(where: { $0.collection == collection && $0.inserted.contains(id) }) {
                return event.commit
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// The changes to `collection` in each commit after `start`, in order, once the feed lists at
    /// least `count` of them: a server's feed lists a commit once every transaction that began
    /// before it has ended, which another test's open transaction can hold back a while.
    static func commits(_ store: any DocumentStore, after start: CommitID?, in collection: String, atLeast count: Int)
        async throws -> [CollectionChanges]
    {
        var found: [CollectionChanges] = []
        for _ in 0..<200 {
            found = []
            for try await event in try store.changes(after: start).recordedSoFar {
                found += event.changes.filter { $0.collection == collection }
            }
            if found.count >= count { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return found
    }
}

/// A collection of no store: what a unit of work must refuse.
final class ReferenceCollection: DocumentCollection, @unchecked Sendable {
    typealias Object = Document
    let name = "elsewhere"
    let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
    let indexes: [IndexDefinition] = []
    let undeclaredIndexes: [IndexDefinition] = []
    func query(_ query: Query) async throws -> [Document] { [] }
    func count(_ query: Query) async throws -> Int { 0 }
    func document(id: Value) async throws -> Document? { nil }
    func explain(params: [String: Value]?, options: [String: Value]?) throws -> QueryPlan {
        throw DataStoreError(.unsupported, "no plans here")
    }
    func add(contentsOf objects: [Document]) async throws -> [Value] { [] }
    func put(contentsOf objects: [Document]) async throws -> [Value] { [] }
    func remove(_ query: Query) async throws -> Int { 0 }
    func page(params: [String: Value]?, options: [String: Value]?, size: Int, after token: PageToken?) async throws
        -> Page<Document>
    { Page(objects: [], next: nil) }
    func observe(params: [String: Value]?, options: [String: Value]?) throws -> QueryObservation<Document> {
        throw DataStoreError(.unsupported, "no observations here")
    }
    func check() throws -> [IntegrityProblem] { [] }
    func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Document] { [] }
    func get(id: Value) async throws -> Document { throw DataStoreError(.notFound, "nothing here") }
    func put(id: Value, object: Document) async throws -> Document { object }
    func add(object: Document) async throws -> Document { object }
    func remove(id: Value) async throws -> Document { throw DataStoreError(.notFound, "nothing here") }
    func all() async throws -> [Document] { [] }
    func stream(params: [String: Value]?, options: [String: Value]?, pageSize: Int) throws
        -> AsyncThrowingStream<Document, any Error>
    { AsyncThrowingStream { $0.finish() } }
    func read<R>(batchSize: Int, _ body: (ReferenceSnapshot) throws -> R) throws -> R { try body(ReferenceSnapshot()) }
    func prepareQuery(params: [String: QueryParameter], options: [String: Value]?) throws -> ReferencePrepared {
        ReferencePrepared()
    }
}

/// The empty snapshot of ``ReferenceCollection``.
struct ReferenceSnapshot: DocumentSnapshot {
    func query(params: [String: Value]?, options: [String: Value]?) throws -> [Document] { [] }
    func documents(params: [String: Value]?, options: [String: Value]?) throws -> [Document] { [] }
    func count(params: [String: Value]?) throws -> Int { 0 }
    func get(id: Value) throws -> Document { throw DataStoreError(.notFound, "nothing here") }
}

/// The prepared query of ``ReferenceCollection``, which finds nothing.
struct ReferencePrepared: PreparedDocumentQuery {
    let parameters: [String] = []
    func run(_ values: [String: Value]) async throws -> [Document] { [] }
    func query(_ values: [String: Value]) throws -> Query { Query() }
    func explain(_ values: [String: Value]) throws -> QueryPlan { throw DataStoreError(.unsupported, "no plans here") }
}
