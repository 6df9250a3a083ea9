import DataStoreKit
import Foundation
import Testing

// From README.md ("Usage"), verbatim apart from the store's path; `readmeBlocksAreHere` checks it.

struct Post: Codable, Sendable {
    var id: String
    var author: String
    var created_ts: Double
    var text: String
}

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
        let posts = try await store.collection(Post.self, idField: "id", indexes: [IndexDefinition("created_ts")])
        let saved = try await posts.put(
            id: "n1", object: Post(id: "n1", author: "ann", created_ts: 1437108600, text: "hello"))
        let mine = try await posts.query(params: ["author": "ann", "created_ts >=": 1437108600], options: nil)
        let howMany = try await posts.count(params: ["author": "ann"])

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

        #expect(mine.map(\.text) == ["hello"])
        #expect(howMany == 1)
        #expect(saved.text == "hello")
        #expect(stored.id?.isEmpty == false)
        #expect(conversation.map(\.message) == ["hello"])
        #expect(recent.map(\.message) == ["hello"])
        #expect(reply.message == "hi!")
        #expect(try await messages.get(id: "m2").message == "hi!")
        #expect(
            try messages.explain(params: ["created_ts >=": 1437108600]).description.hasPrefix(
                "index scan of created_ts"))
    }

    @Test("every Swift block of the README's usage appears in this file, paragraph by paragraph")
    func readmeBlocksAreHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = Self.squeezed(try String(contentsOf: here, encoding: .utf8))
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        let usage = blocks.filter { !$0.hasPrefix("// Package.swift") }
        #expect(usage.count == 2)
        for block in usage {
            let paragraphs = block.replacingOccurrences(of: "path: \"/var/lib/myapp/store\"", with: "path: path")
                .components(separatedBy: "\n\n")
            for paragraph in paragraphs where !paragraph.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                let found = source.contains(Self.squeezed(paragraph))
                #expect(found, "README paragraph not in the test:\n\(paragraph)")
            }
        }
    }

    /// The text with every run of white space made one space, so indentation does not count.
    static func squeezed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
