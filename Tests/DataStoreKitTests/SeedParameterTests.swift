import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@Suite("The seed's [String: Any] parameters and Swift values in queries")
struct SeedParameterTests {
    struct Order: Codable, Equatable, Sendable {
        var id: String
        var owner: UUID
        var created_ts: Date
        var n: Int
        var link: URL
        var amount: Decimal
    }

    static let owner = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    static func order(_ number: Int) -> Order {
        Order(
            id: "o\(number)", owner: number % 2 == 0 ? owner : UUID(),
            created_ts: Date(timeIntervalSince1970: Double(number)),
            n: number, link: URL(string: "https://example.com/o/\(number)")!, amount: Decimal(number) / 100)
    }

    @Test("variables as query values without wrapping: Date, UUID, Int, UInt8")
    func variablesAsValues() async throws {
        let store = try DataStore.inMemory()
        let orders = try await store.collection(
            Order.self, idField: "id", indexes: [IndexDefinition("owner"), IndexDefinition("created_ts")])
        try await orders.add(contentsOf: (0..<10).map(Self.order))
        let since = Date(timeIntervalSince1970: 4)
        let owner = Self.owner
        let someInt = 8
        let matches = try await orders.query(
            params: ["created_ts >=": since, "owner": owner, "n": someInt], options: nil)
        #expect(matches.map(\.id) == ["o8"])
        let small: UInt8 = 3
        #expect(try await orders.count(params: ["n <": small]) == 3)
        #expect(try await orders.remove(params: ["owner": owner, "n >": small]) == 3)
        #expect(try orders.count() == 7)
    }

    @Test("Codable values are stored as users expect: the stored Value of each")
    func storedValues() async throws {
        let store = try DataStore.inMemory()
        let orders = try await store.collection(Order.self, idField: "id")
        let order = Self.order(2)
        _ = try await orders.add(object: order)
        let stored = try #require(try orders.document(id: "o2"))
        #expect(stored["owner"] == .string(Self.owner.uuidString))
        #expect(stored["created_ts"] == .double(2))
        #expect(stored["link"] == "https://example.com/o/2")
        #expect(stored["amount"] == "0.02")
        #expect(try await orders.get(id: "o2") == order)
        #expect(
            try await orders.query(params: ["link": URL(string: "https://example.com/o/2")!], options: nil) == [order])
    }

    @Test("the seed's paramsDic, passed straight to query, async and with a callback")
    func seedLines() async throws {
        let store = try DataStore.inMemory()
        let model = try await store.collection(ConformanceMessage.self, name: "Message")
        _ = try await model.add(
            object: ConformanceMessage(id: "1", from: "1234567890", to: "0987654321", createdTS: 1437108601))
        _ = try await model.add(object: ConformanceMessage(id: "2", from: "1234567890", to: "x", createdTS: 1))
        let paramsDic: [String: Any]? = ["from_user_key": "1234567890", "to_user_key": "0987654321"]
        #expect(ModelConformance.ids(try await model.query(params: paramsDic, options: nil)) == ["1"])
        let patamsDic: [String: Any]? = ["created_ts >=": 1437108600]
        let viaCallback: [ConformanceMessage] = try await withCheckedThrowingContinuation { continuation in
            model.query(params: patamsDic, options: [:]) { error, results in
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: results ?? [])
                }
            }
        }
        #expect(ModelConformance.ids(viaCallback) == ["1"])
        struct Opaque {}
        let bad: [String: Any]? = ["owner": Opaque()]
        let reported: (any Error)? = await withCheckedContinuation { continuation in
            model.query(params: bad, options: nil) { error, _ in continuation.resume(returning: error) }
        }
        #expect((reported as? DataStoreError)?.code == .invalidQuery)
    }
}

@Suite("A Codable collection's idField must be a coding key")
struct IdFieldCheckTests {
    struct Account: Codable, Sendable {
        var key: String
        var name: String?
        var nested: Inner

        struct Inner: Codable { var depth: Int }
        enum CodingKeys: String, CodingKey {
            case key = "account_key"
            case name, nested
        }
    }

    @Test("a wrong idField is schemaMismatch at collection(...), naming the field and the keys")
    func wrongIdField() async throws {
        let store = try DataStore.inMemory()
        let error = await #expect(throws: DataStoreError.self) {
            try await store.collection(Note.self, idField: "identifier")
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("identifier") == true)
        #expect(error?.message.contains("from_user_key") == true)
        #expect(try store.collectionNames().isEmpty)
        _ = try await store.collection(Note.self, idField: "id")
    }

    @Test("the coding key's own name is the field, and a type the probe cannot read is let through")
    func renamedAndInconclusive() async throws {
        #expect(
            CodingKeyProbe.keys(of: Note.self) == [
                "id", "from_user_key", "to_user_key", "message", "created_ts", "type", "tags"
            ])
        #expect(CodingKeyProbe.keys(of: Account.self) == ["account_key", "name", "nested"])
        let store = try DataStore.inMemory()
        let wrong = await #expect(throws: DataStoreError.self) {
            try await store.collection(Account.self, idField: "key")
        }
        #expect(wrong?.code == .schemaMismatch)
        _ = try await store.collection(Account.self, idField: "account_key")
        // An enum refuses the probe's empty string: no answer, so no check (any idField is taken).
        #expect(CodingKeyProbe.keys(of: Tagged.self) == nil)
    }

    struct Tagged: Codable {
        var id: String
        var kind: Kind
        enum Kind: String, Codable { case a, b }
    }
}
