// The battery's scenarios for the partial update and the delete by query.
import DataStoreCore
import Testing

extension ModelConformance {
    static let writeScenarios: [Scenario] = [
        Scenario("update sets and unsets fields and keeps the others") { (model) async throws in
            let original = ConformanceMessage(
                id: "u1", from: "1", to: "2", message: "draft", type: "text", createdTS: 1437118258)
            _ = try await model.add(object: original)
            let updated = try await model.update(
                id: "u1", set: ["message": "final", "created_ts": 1.5], unset: ["type"])
            let expected = ConformanceMessage(id: "u1", from: "1", to: "2", message: "final", createdTS: 1.5)
            #expect(updated == expected)
            #expect(try await model.get(id: "u1") == expected)
            #expect(try await model.all().count == 1)
        },
        Scenario("update of an absent id is notFound and inserts nothing") { (model) async throws in
            await expectError(.notFound, "update of an absent id") {
                try await model.update(id: "nobody", set: ["message": "x"], unset: [])
            }
            #expect(try await model.all().isEmpty)
        },
        Scenario("update of the id field is invalidValue and changes nothing") { (model) async throws in
            let original = ConformanceMessage(id: "u2", from: "1", message: "keep")
            _ = try await model.add(object: original)
            await expectError(.invalidValue, "update setting the id") {
                try await model.update(id: "u2", set: ["id": "u3", "message": "lost"], unset: [])
            }
            await expectError(.invalidValue, "update unsetting the id") {
                try await model.update(id: "u2", set: [:], unset: ["id"])
            }
            #expect(try await model.get(id: "u2") == original)
            await expectError(.notFound, "the new id") { try await model.get(id: "u3") }
        },
        Scenario("remove(params:) removes every match and returns the count") { (model) async throws in
            try await addAll(
                [
                    ConformanceMessage(id: "r1", from: "a", createdTS: 1),
                    ConformanceMessage(id: "r2", from: "a", createdTS: 2),
                    ConformanceMessage(id: "r3", from: "b", createdTS: 3),
                    ConformanceMessage(id: "r4", from: "a", createdTS: 4)
                ], to: model)
            #expect(try await model.remove(params: ["from_user_key": "a", "created_ts <": 4]) == 2)
            #expect(ids(try await model.query(params: nil, options: ["sort": ["id"]])) == ["r3", "r4"])
            #expect(try await model.remove(params: ["from_user_key": "nobody"]) == 0)
            #expect(try await model.remove(params: nil) == 2)
            #expect(try await model.all().isEmpty)
            await expectError(.invalidQuery, "remove with a bad operator") {
                try await model.remove(params: ["created_ts <<": 1])
            }
        }
    ]
}
