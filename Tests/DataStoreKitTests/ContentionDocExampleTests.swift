import DataStoreKit
import Foundation
import ModelConformance
import Testing

// The Swift blocks of docs/contention.md, verbatim (DocsBlockTests checks that each is here), and
// a test that runs them.

func touch(_ users: any DocumentCollection<ChatUser>, id: String, at time: Double) async throws {
    _ = try await users.update(
        id: .string(id), FieldUpdate(set: ["last_seen": .double(time)], increment: ["messages": 1]))
}

func send(_ text: String, from user: String, in store: any DocumentStore) async throws -> Int {
    let users = try await store.documentCollection("users")
    let messages = try await store.documentCollection("messages")
    return try await store.write { tx in
        var sender = try tx.get(id: .string(user), from: users)
        let count = (sender["sent"]?.intValue ?? 0) + 1
        sender["sent"] = .int(count)
        try tx.put(id: .string(user), object: sender, in: users)
        try tx.add(["from": .string(user), "text": .string(text)], to: messages)
        return Int(count)
    }
}

func rename(_ id: String, to name: String, in store: any DocumentStore) async throws {
    let users = try await store.documentCollection("users")
    try await store.perform(attempts: 20) { unit in
        var user = try unit.get(id: .string(id), from: users)
        user["name"] = .string(name)
        _ = try unit.put(id: .string(id), object: user, in: users)
    }
}

@Suite("docs/contention.md's examples")
struct ContentionDocExampleTests {
    @Test("update operators, write { } and perform do what the article says, concurrently")
    func examplesRun() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let plain = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
        _ = try await store.collection("users", mapping: plain).add(object: ["id": "ann", "name": "Ann", "sent": 0])
        _ = try await store.collection("messages", mapping: plain)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<20 { group.addTask { try await send("hello \(index)", from: "ann", in: store) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.sorted() == Array(1...20))
        // Each run that conflicts lost to another unit's commit, so with six units none runs more
        // than six times: within both bounds (20 for rename, perform's default 10 for post).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 { group.addTask { try await rename("ann", to: "Ann \(index)", in: store) } }
            group.addTask { try await post("hi", from: "ann", in: store) }
            try await group.waitForAll()
        }
        let ann = try await store.documentCollection("users").get(id: "ann")
        #expect(ann["sent"] == .int(20) && ann["last_seen"] == .int(1437108600))
        #expect(ann["name"]?.stringValue?.hasPrefix("Ann ") == true)
        #expect(try await store.documentCollection("messages").count(params: nil) == 21)
        let users = try await store.collection(ChatUser.self, name: "chat-users", idField: "id")
        _ = try await users.add(object: ChatUser(id: "bob", name: "Bob", city: "Oslo"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { try await touch(users, id: "bob", at: 5) } }
            try await group.waitForAll()
        }
        let bob = try #require(try users.document(id: "bob"))
        #expect(bob["messages"] == .int(10) && bob["last_seen"] == .double(5))
    }
}
