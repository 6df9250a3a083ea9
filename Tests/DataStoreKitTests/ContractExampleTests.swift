import DataStoreKit
import Foundation
import Testing

// The Swift blocks of the contract's doc comments (Sources/DataStoreEngine/Contract) and of the
// engine's DocC page, verbatim; `blocksAreHere` checks that each is in this file, so each compiles.

func recent(_ messages: some DocumentCollection<Message>) async throws -> [Message] {
    try await messages.query(params: ["created_ts >=": 1437108600], options: ["limit": 20])
}

func messages(in store: some DocumentStore) async throws -> any DocumentCollection<Message> {
    try await store.collection(Message.self, indexes: [IndexDefinition("created_ts")])
}

func totalLength(_ messages: some DocumentCollection<Message>) throws -> Int {
    try messages.read { snapshot in
        var total = 0
        for message in try snapshot.query(params: ["created_ts >=": 1437108600], options: nil) {
            total += message.message?.count ?? 0
        }
        return total
    }
}

/// The contract's `perform` example (Sources/DataStoreEngine/Contract/DocumentStore+Perform.swift).
func post(_ text: String, from user: String, in store: some DocumentStore) async throws {
    let users = try await store.documentCollection("users")
    let messages = try await store.documentCollection("messages")
    try await store.perform { unit in
        _ = try unit.update(id: .string(user), set: ["last_seen": 1437108600], unset: [], in: users)
        _ = try unit.add(["from": .string(user), "text": .string(text)], to: messages)
    }
}

@Suite("The contract's examples")
struct ContractExampleTests {
    @Test("the examples run on an LMDB store")
    func examplesRun() async throws {
        let store = try DataStore.inMemory()
        defer { store.close() }
        let collection = try await messages(in: store)
        _ = try await collection.add(
            object: Message(dictionary: ["id": "m1", "created_ts": 1437108601.0, "message": "hello"]))
        _ = try await collection.add(
            object: Message(dictionary: ["id": "m0", "created_ts": 1437108599.0, "message": "before"]))
        #expect(try await recent(collection).map(\.id) == ["m1"])
        #expect(try totalLength(collection) == 5)
    }

    @Test("every Swift block of the contract's doc comments and the engine's DocC page is in this file")
    func blocksAreHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = ReadmeUsageTests.squeezed(try String(contentsOf: here, encoding: .utf8))
        let engine = root.appendingPathComponent("Sources/DataStoreEngine")
        var texts: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: engine.appendingPathComponent("Contract").path)
        {
            let text = try String(contentsOf: engine.appendingPathComponent("Contract/\(name)"), encoding: .utf8)
            texts.append(
                text.split(separator: "\n", omittingEmptySubsequences: false)
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                    .map { $0.hasPrefix("///") ? String($0.dropFirst(3)) : "" }.joined(separator: "\n"))
        }
        texts.append(
            try String(
                contentsOf: engine.appendingPathComponent("DataStoreEngine.docc/DataStoreEngine.md"), encoding: .utf8))
        var blocks = 0
        for text in texts {
            for block in text.components(separatedBy: "```swift\n").dropFirst().map({
                $0.components(separatedBy: "```")[0]
            }) {
                blocks += 1
                #expect(source.contains(ReadmeUsageTests.squeezed(block)), "not in the test:\n\(block)")
            }
        }
        #expect(blocks >= 3)
    }
}
