import DataStoreCore
import DataStoreKit
import Foundation
import Testing

// From README.md ("Usage"), verbatim apart from the store's path.

final class Message: ObjectCoder {
    var id: String?
    var from_user_key: String?
    var to_user_key: String?
    var message: String?
    var created_ts: Double?

    static func identifierKey() -> String { "id" }

    required init(dictionary withDictionary: [String: Any]) {
        id = withDictionary["id"] as? String
        from_user_key = withDictionary["from_user_key"] as? String
        to_user_key = withDictionary["to_user_key"] as? String
        message = withDictionary["message"] as? String
        created_ts = withDictionary["created_ts"] as? Double
    }

    func toDictionary() -> [String: Any] {
        [
            "id": id ?? "", "from_user_key": from_user_key ?? "", "to_user_key": to_user_key ?? "",
            "message": message ?? "", "created_ts": created_ts ?? Date().timeIntervalSince1970
        ]
    }
}

@Suite("README")
struct ReadmeUsageTests {
    @Test("the README's usage example runs as written")
    func usage() async throws {
        let path = NSTemporaryDirectory() + "datastorekit-readme-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }

        let store = try DataStore.open(path: path)
        let messages = try await store.collection(
            Message.self,
            indexes: [
                IndexDefinition("created_ts"),
                IndexDefinition("conversation", fields: ["from_user_key", "to_user_key"])
            ])

        let hello = Message(dictionary: [
            "from_user_key": "1234567890", "to_user_key": "0987654321",
            "message": "hello", "created_ts": 1437108600.0
        ])
        let stored = try await messages.add(object: hello) // gets a generated id

        let conversation = try await messages.query(
            params: ["from_user_key": "1234567890", "to_user_key": "0987654321"], options: nil)
        let recent = try await messages.query(
            params: ["created_ts >=": 1437108600],
            options: ["sort": ["created_ts": ["ascending": false]], "limit": 20])
        print(try messages.explain(params: ["created_ts >=": 1437108600]))

        // A unit of work: staged changes, read back, saved as one durable change set.
        let context = store.newContext()
        try context.add(
            Message(dictionary: [
                "id": "m2", "from_user_key": "0987654321",
                "to_user_key": "1234567890", "message": "hi!",
                "created_ts": 1437108660.0
            ]), to: messages)
        let reply = try context.get(id: "m2", from: messages)
        try await context.save()

        #expect(stored.id?.isEmpty == false)
        #expect(conversation.map(\.message) == ["hello"])
        #expect(recent.map(\.message) == ["hello"])
        #expect(reply.message == "hi!")
        #expect(try await messages.get(id: "m2").message == "hi!")
        #expect(
            try messages.explain(params: ["created_ts >=": 1437108600]).description.hasPrefix(
                "index scan of created_ts"))
    }
}
