// The exact requests of Restify's partial update and delete by query, and their errors.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Testing

@Suite("Restify: PATCH and DELETE by query")
struct RestifyWriteTests {
    static let base = "http://api.mysite.com/messages"

    @Test("update sends PATCH base/{id} with the set and unset fields")
    func patchRequest() async throws {
        let client = MockClient(status: 200, json: #"{"id": "a/b", "message": "new"}"#)
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        let updated = try await model.update(id: "a/b", set: ["message": "new"], unset: ["type"])
        #expect(updated.message == "new")
        let request = try #require(client.requests.first)
        #expect(request.description == "PATCH http://api.mysite.com/messages/a%2Fb")
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self) == #"{"set":{"message":"new"},"unset":["type"]}"#)
        #expect(request.header("Content-Type") == "application/json; charset=utf-8")
    }

    @Test("an update touching the id is refused before sending; a 404 is notFound")
    func patchErrors() async throws {
        let client = MockClient(status: 404, json: #"{"error": "no"}"#)
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        await ModelConformance.expectError(.invalidValue, "id in set") {
            try await model.update(id: "1", set: ["id": "2"], unset: [])
        }
        #expect(client.requests.isEmpty)
        let missing = await ModelConformance.expectError(.notFound, "404") {
            try await model.update(id: "1", set: ["message": "x"], unset: [])
        }
        #expect(missing?.message.contains("1") == true)
    }

    @Test("remove(params:) sends DELETE base?params and reads the count")
    func deleteByQuery() async throws {
        let client = MockClient(status: 200, json: #"{"removed": 3}"#)
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        #expect(try await model.remove(params: ["from_user_key": "12", "created_ts <": 5]) == 3)
        let request = try #require(client.requests.first)
        #expect(request.method == .delete)
        #expect(request.url.path == "/messages")
        #expect(request.url.query?.contains("from_user_key=12") == true)
        #expect(request.url.query?.contains("created_ts%20%3C=5") == true)
        for wrong in [#"{"removed": -1}"#, #"{"count": 3}"#, #"[]"#] {
            let bad = Restify<ConformanceMessage>(path: Self.base, networkClient: MockClient(status: 200, json: wrong))
            await ModelConformance.expectError(.badResponse, wrong) { try await bad.remove(params: nil) }
        }
    }

    @Test("concurrent PATCHes of different fields on the test server all land")
    func concurrentPatches() async throws {
        let model = try Models.freshMessages()
        _ = try await model.add(object: ConformanceMessage(id: "c1", from: "a"))
        let fields = ["to_user_key", "message", "type"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for field in fields { group.addTask { _ = try await model.update(id: "c1", set: [field: "x"]) } }
            try await group.waitForAll()
        }
        let stored = try await model.get(id: "c1")
        #expect(stored.to_user_key == "x" && stored.message == "x" && stored.type == "x" && stored.from_user_key == "a")
    }
}
