import DataStoreCore
import DataStoreKit
import Foundation
import Testing

// The Swift blocks of docs/queries.md, verbatim, each inside the function that gives it its
// context (a `model`, a `messages` collection, a `store`), so that each compiles; `DocsBlockTests`
// checks that every block is here, and the tests below run them.

/// docs/queries.md's declarations and calls.
enum QueriesDoc {
    /// The message docs/queries.md queries: the seed's fields, and the ones its writes change.
    struct Message: Codable, Sendable, Equatable {
        var id: String
        var from_user_key: String
        var to_user_key: String
        var message: String
        var created_ts: Double
        var type: String = "text"
        var read: Bool? = nil
        var folder: String? = nil
        var draft: Bool? = nil
    }

    /// Collects the dictionary literals of a block, each typed as a query's parameters or options.
    @resultBuilder
    enum Dictionaries {
        static func buildExpression(_ dictionary: [String: Value]) -> [[String: Value]] { [dictionary] }
        static func buildBlock(_ parts: [[String: Value]]...) -> [[String: Value]] { parts.flatMap { $0 } }
    }

    /// The dictionaries written in `build`, in order.
    static func dictionaries(@Dictionaries _ build: () -> [[String: Value]]) -> [[String: Value]] { build() }

    /// "The seed's parameter dictionaries are the query language of every model".
    static func seedQuery(_ model: some ModelProtocol<Message>) async throws -> [Message] {
        let messages = try await model.query(
            params: ["from_user_key": "1234567890", "created_ts >=": 1437108600],
            options: ["sort": ["-created_ts"], "limit": 20])
        return messages
    }

    /// "Examples": the seed's, then more.
    static let seedExamples = dictionaries {
        ["from_user_key": "1234567890", "to_user_key": "0987654321"]
        // from_user_key == "1234567890" and to_user_key == "0987654321"

        ["created_ts >=": 1437108600]
        // created_ts >= 1437108600 — numbers only: a string "1437108601" does not match

        ["created_ts": 1437118258]
        // created_ts == 1437118258 — numeric equality: a stored 1437118258.0 matches too
    }

    static let moreExamples = dictionaries {
        ["ts >=": 1437108600, "ts <": 1437195000] // a half-open interval
        ["status in": ["sent", "read"]] // status == "sent" or status == "read"
        ["deleted_at": nil] // an explicit stored null (not a missing field)
        ["tags": "swift"] // tags is "swift", or an array containing "swift"
        ["tags": ["swift", "lmdb"]] // tags is exactly that array
        ["name !=": "bot"] // name present and not "bot"
    }

    /// "`sort`": the seed's form, then the ordered form.
    static let seedSort = dictionaries {
        ["sort": ["created_ts": ["ascending": false]]]
    }

    static let orderedSorts = dictionaries {
        ["sort": [["created_ts": ["ascending": false]], "from_user_key"]]
        ["sort": ["-created_ts", "from_user_key"]] // the same
        ["sort": "-created_ts"] // a single string is also accepted
    }

    /// "Writes: partial update and delete by query".
    static func archive(_ messages: StoreCollection<Message>, cutoff: Double) async throws -> (Message, Int) {
        let updated = try await messages.update(id: "42", set: ["read": true, "folder": "archive"], unset: ["draft"])
        let removed = try await messages.remove(params: ["folder": "trash", "created_ts <": cutoff]) // an Int
        return (updated, removed)
    }

    /// "Writes: partial update and delete by query": an update by path, with operators.
    static func operators(_ users: StoreCollection<Document>) async throws -> Document {
        let user = try await users.update(
            id: "u1",
            FieldUpdate(
                set: ["profile.city": "Milan"], increment: ["visits": 1], append: ["tags": ["new"]]))
        return user
    }

    /// "Swift values in parameters".
    static func anyParameters<Model: ModelProtocol>(
        _ model: Model, since: Date, ownerUUID: UUID, someInt: Int,
        show: @escaping @Sendable ([Model.Object]) -> Void, report: @escaping @Sendable ((any Error)?) -> Void
    ) async throws -> [Model.Object] {
        let paramsDic: [String: Any]? = ["from_user_key": "1234567890", "to_user_key": "0987654321"]
        model.query(params: paramsDic, options: nil) { error, results in
            if let results { show(results) } else { report(error) }
        }
        let recent = try await model.query(
            params: ["created_ts >=": since, "owner": ownerUUID, "n": someInt], options: nil)
        return recent
    }

    /// "Prepared queries".
    static func prepared(_ messages: StoreCollection<Message>) async throws -> [Message] {
        let conversation = try messages.prepareQuery(
            params: ["from_user_key": .parameter(.string), "to_user_key": .parameter(.string), "type": .value("text")],
            options: ["sort": ["-created_ts"], "limit": 20])
        let page = try await conversation.run(["from_user_key": "12", "to_user_key": "34"])
        return page
    }

    /// "Reading lazily": the bytes of the messages since 1437108600, then each message from "12",
    /// then the first page of the newest.
    static func lazily(_ messages: StoreCollection<Message>, handle: (Message) async throws -> Void) async throws
        -> (Int, Page<Message>)
    {
        // A Sequence over one snapshot, inside a synchronous read closure (as GRDB's cursors).
        let total = try messages.read { snapshot in
            var bytes = 0
            for message in try snapshot.query(params: ["created_ts >=": 1437108600], options: ["sort": "created_ts"]) {
                bytes += message.message.utf8.count
            }
            return bytes
        }

        // An AsyncSequence that pages under the hood: each page its own short read.
        for try await message in try messages.stream(params: ["from_user_key": "12"], pageSize: 1_000) {
            try await handle(message)
        }

        // Keyset pages with a continuation token (below).
        let page = try await messages.page(params: nil, options: ["sort": "-created_ts"], size: 50)
        return (total, page)
    }

    /// "Keyset pagination".
    static func pages(_ messages: StoreCollection<Message>, show: ([Message]) -> Void) async throws {
        var token: PageToken? = nil
        repeat {
            let page = try await messages.page(
                params: ["to_user_key": "u2"], options: ["sort": "-created_ts"],
                size: 50, after: token)
            show(page.objects)
            token = page.next // hand page.next?.description to a client; PageToken(text) reads it back
        } while token != nil
    }

    /// "Covering indexes".
    static func covering(_ store: DataStore) async throws -> ([Message], StoreCollection<Message>) {
        let messages = try await store.collection(
            Message.self, idField: "id",
            indexes: [IndexDefinition("created_ts", covering: .document), IndexDefinition("from_user_key")])
        let recent = try await messages.query(params: ["created_ts >=": 1437108600], options: ["limit": 100])
        print(try messages.explain(params: ["created_ts >=": 1437108600], options: ["limit": 100]))
        // covering index scan of created_ts on Message (created_ts in [1437108600, inf]), forward; …
        return (recent, messages)
    }

    static func message(
        _ id: String, from: String = "12", to: String = "34", ts: Double = 1437108600, text: String = "hello",
        type: String = "text"
    ) -> Message {
        Message(id: id, from_user_key: from, to_user_key: to, message: text, created_ts: ts, type: type)
    }
}

@Suite("The examples of docs/queries.md")
struct QueriesDocExampleTests {
    @Test("the seed's query finds the sender's recent messages, newest first, on a store and in a context")
    func seedQuery() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(QueriesDoc.Message.self, idField: "id")
        _ = try await messages.add(contentsOf: [
            QueriesDoc.message("a", from: "1234567890", ts: 1437108600),
            QueriesDoc.message("b", from: "1234567890", ts: 1437108700),
            QueriesDoc.message("c", from: "1234567890", ts: 1437108500),
            QueriesDoc.message("d", from: "42", ts: 1437108800)
        ])
        #expect(try await QueriesDoc.seedQuery(messages).map(\.id) == ["b", "a"])
        #expect(try await QueriesDoc.seedQuery(store.newContext().collection(messages)).map(\.id) == ["b", "a"])
    }

    @Test("the parameter examples match what their comments say")
    func parameterExamples() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let seed = try await store.collection("Seed", mapping: .documents(idField: "id"))
        _ = try await seed.add(contentsOf: [
            ["id": "s1", "from_user_key": "1234567890", "to_user_key": "0987654321", "created_ts": 1437118258.0],
            ["id": "s2", "from_user_key": "1234567890", "to_user_key": "x", "created_ts": "1437108601"],
            ["id": "s3", "from_user_key": "x", "to_user_key": "0987654321", "created_ts": 1437108599]
        ])
        #expect(try await Self.ids(seed, QueriesDoc.seedExamples) == [["s1"], ["s1"], ["s1"]])

        let more = try await store.collection("More", mapping: .documents(idField: "id"))
        _ = try await more.add(contentsOf: [
            [
                "id": "e1", "ts": 1437108600, "status": "sent", "deleted_at": nil, "tags": ["swift", "lmdb"],
                "name": "ann"
            ],
            ["id": "e2", "ts": 1437195000, "status": "read", "tags": ["swift"], "name": "bot"],
            ["id": "e3", "ts": 1437100000, "status": "draft", "tags": "swift"]
        ])
        #expect(
            try await Self.ids(more, QueriesDoc.moreExamples) == [
                ["e1"], ["e1", "e2"], ["e1"], ["e1", "e2", "e3"], ["e1"], ["e1"]
            ])
    }

    @Test("the sort examples order as their comments say")
    func sortExamples() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(QueriesDoc.Message.self, idField: "id")
        _ = try await messages.add(contentsOf: [
            QueriesDoc.message("f1", from: "b", ts: 2), QueriesDoc.message("f2", from: "a", ts: 2),
            QueriesDoc.message("f3", from: "c", ts: 1)
        ])
        var orders: [[String]] = []
        for options in QueriesDoc.seedSort + QueriesDoc.orderedSorts {
            orders.append(try await messages.query(params: nil, options: options).map(\.id))
        }
        #expect(orders == [["f1", "f2", "f3"], ["f2", "f1", "f3"], ["f2", "f1", "f3"], ["f1", "f2", "f3"]])
    }

    @Test("the partial update keeps the other fields, and the delete by query counts what it removed")
    func writes() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(QueriesDoc.Message.self, idField: "id")
        var original = QueriesDoc.message("42", text: "keep me")
        original.read = false
        original.draft = true
        var old = QueriesDoc.message("t1", ts: 100)
        old.folder = "trash"
        var new = QueriesDoc.message("t2", ts: 300)
        new.folder = "trash"
        _ = try await messages.add(contentsOf: [original, old, new, QueriesDoc.message("i1", ts: 100)])
        let (updated, removed) = try await QueriesDoc.archive(messages, cutoff: 200)
        #expect(updated.read == true && updated.folder == "archive" && updated.draft == nil)
        #expect(updated.message == "keep me")
        #expect(removed == 1)
        #expect(try await messages.all().map(\.id) == ["42", "i1", "t2"])
    }

    @Test("an update by path sets a nested field in place, increments and appends")
    func pathUpdate() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let users = try await store.collection("users", mapping: .documents(idField: "id"))
        _ = try await users.add(object: ["id": "u1", "profile": ["city": "Rome", "zip": "00100"], "visits": 4])
        let user = try await QueriesDoc.operators(users)
        #expect(user == ["id": "u1", "profile": ["city": "Milan", "zip": "00100"], "visits": 5, "tags": ["new"]])
        #expect(try await users.get(id: "u1") == user)
    }

    @Test("Swift values in parameters: the callback form and a query on a date, a UUID and an Int")
    func anyParameters() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let owner = UUID()
        let since = Date(timeIntervalSince1970: 1437108600)
        let model = try await store.collection("Any", mapping: .documents(idField: "id"))
        _ = try await model.add(contentsOf: [
            ["id": "p1", "from_user_key": "1234567890", "to_user_key": "0987654321", "created_ts": 1437108000.0],
            ["id": "p2", "created_ts": 1437108601.5, "owner": .string(owner.uuidString), "n": 7],
            ["id": "p3", "created_ts": 1437108601.5, "owner": .string(owner.uuidString), "n": 8]
        ])
        let (stream, continuation) = AsyncStream.makeStream(of: Result<[String], DataStoreError>.self)
        let recent = try await QueriesDoc.anyParameters(
            model, since: since, ownerUUID: owner, someInt: 7,
            show: { continuation.yield(.success($0.map { $0["id"]?.stringValue ?? "" })) },
            report: {
                continuation.yield(
                    .failure(DataStoreError(.invalidValue, "the callback failed: \(String(describing: $0))")))
            })
        #expect(recent.map { $0["id"] } == ["p2"])
        var callbacks = stream.makeAsyncIterator()
        #expect(try await callbacks.next()?.get() == ["p1"])
    }

    @Test("a prepared query runs with its values bound")
    func prepared() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(QueriesDoc.Message.self, idField: "id")
        _ = try await messages.add(contentsOf: [
            QueriesDoc.message("a", ts: 1), QueriesDoc.message("b", ts: 2),
            QueriesDoc.message("v", ts: 3, type: "video"),
            QueriesDoc.message("x", to: "99", ts: 4)
        ])
        #expect(try await QueriesDoc.prepared(messages).map(\.id) == ["b", "a"])
    }

    @Test("reading lazily: a cursor, a stream and a page")
    func lazily() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(
            QueriesDoc.Message.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        _ = try await messages.add(contentsOf: [
            QueriesDoc.message("a", ts: 1437108600, text: "hi"),
            QueriesDoc.message("b", from: "7", ts: 1437108700, text: "hello"),
            QueriesDoc.message("c", ts: 1437100000, text: "not counted")
        ])
        var handled: [String] = []
        let (total, page) = try await QueriesDoc.lazily(messages) { handled.append($0.id) }
        #expect(total == 7)
        #expect(handled.sorted() == ["a", "c"])
        #expect(page.objects.map(\.id) == ["b", "a", "c"])
        #expect(page.next == nil)
    }

    @Test("keyset pages show every match once, in order")
    func pages() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(
            QueriesDoc.Message.self, idField: "id",
            indexes: [IndexDefinition("inbox", fields: ["to_user_key", "created_ts"])])
        _ = try await messages.add(
            contentsOf: (0..<130).map { QueriesDoc.message("m\($0)", to: $0 % 13 == 0 ? "u3" : "u2", ts: Double($0)) })
        var shown: [[QueriesDoc.Message]] = []
        try await QueriesDoc.pages(messages) { shown.append($0) }
        #expect(shown.map(\.count) == [50, 50, 20])
        #expect(
            shown.flatMap { $0 }
                == (try await messages.query(params: ["to_user_key": "u2"], options: ["sort": "-created_ts"])))
    }

    @Test("a covering index serves the query")
    func covering() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let messages = try await store.collection(QueriesDoc.Message.self, idField: "id")
        _ = try await messages.add(contentsOf: [
            QueriesDoc.message("a", ts: 1437108600), QueriesDoc.message("b", ts: 1437100000)
        ])
        let (recent, covered) = try await QueriesDoc.covering(store)
        #expect(recent.map(\.id) == ["a"])
        let plan = try covered.explain(params: ["created_ts >=": 1437108600], options: ["limit": 100])
        #expect(
            plan.description.hasPrefix(
                "covering index scan of created_ts on Message (created_ts in [1437108600, inf]), forward;"))
    }

    /// The ids each of `queries` finds in `collection`, sorted.
    static func ids(_ collection: StoreCollection<Document>, _ queries: [[String: Value]]) async throws -> [[String]] {
        var found: [[String]] = []
        for params in queries {
            found.append(
                try await collection.query(params: params, options: nil).map { $0["id"]?.stringValue ?? "" }.sorted())
        }
        return found
    }
}
