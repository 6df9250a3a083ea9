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
        Scenario("update reads its fields as paths: nested fields are set and unset in place") { (model) async throws in
            let original = ConformanceMessage(id: "p1", message: "hi", meta: ["city": "Rome", "n": 1])
            _ = try await model.add(object: original)
            let updated = try await model.update(
                id: "p1", set: ["meta.city": "Milan", "meta.place.floor": 2, #"meta.a\.b"#: true], unset: ["meta.n"])
            let expected: Document = ["city": "Milan", "place": ["floor": 2], "a.b": true]
            #expect(updated.meta == expected, "\(updated)")
            #expect(try await model.get(id: "p1").meta == expected)
            #expect(ids(try await model.query(params: ["meta.city": "Milan"], options: nil)) == ["p1"])
            // Nothing to unset below a missing field: no error, nothing changed.
            #expect(try await model.update(id: "p1", set: [:], unset: ["meta.none.deeper"]).meta == expected)
        },
        Scenario("update increments, appends and removes array elements atomically") { (model) async throws in
            _ = try await model.add(object: ConformanceMessage(id: "o1", meta: ["n": 1, "tags": ["a", "b", "a"]]))
            _ = try await model.update(id: "o1", FieldUpdate(increment: ["meta.n": 2, "meta.fresh": 5]))
            var meta = try await model.get(id: "o1").meta
            #expect(meta?["n"] == 3 && meta?["fresh"] == 5, "\(String(describing: meta))")
            _ = try await model.update(id: "o1", FieldUpdate(increment: ["meta.n": 0.5], append: ["meta.tags": ["c"]]))
            _ = try await model.update(id: "o1", FieldUpdate(remove: ["meta.tags": ["a"], "meta.none": ["x"]]))
            meta = try await model.get(id: "o1").meta
            #expect(meta?["n"] == 3.5, "\(String(describing: meta))")
            #expect(meta?["tags"] == ["b", "c"], "\(String(describing: meta))")
        },
        Scenario("an update that does not fit the document is invalidValue naming the field, and changes nothing") {
            (model) async throws in
            let original = ConformanceMessage(id: "f1", message: "text", meta: ["n": 1, "s": "x"])
            _ = try await model.add(object: original)
            let refused: [(String, FieldUpdate)] = [
                ("a path through a string", FieldUpdate(set: ["message.inner": 1])),
                ("an increment of a string", FieldUpdate(increment: ["meta.s": 1])),
                ("an increment by a string", FieldUpdate(increment: ["meta.n": "1"])),
                ("an append to a number", FieldUpdate(append: ["meta.n": [1]])),
                ("one field inside another", FieldUpdate(set: ["meta": [:], "meta.n": 2])),
                ("a field changed twice", FieldUpdate(set: ["meta.n": 2], increment: ["meta.n": 1])),
                ("an empty name in a path", FieldUpdate(set: ["meta..n": 2])),
                ("the id inside a path", FieldUpdate(set: ["id.x": 2])),
                ("an increment past the largest integer", FieldUpdate(set: ["meta.n": .int(.max)]))
            ]
            for (what, update) in refused.dropLast() {
                let error = await expectError(.invalidValue, what) { try await model.update(id: "f1", update) }
                #expect(error.map { !$0.message.isEmpty } ?? false)
            }
            _ = try await model.update(id: "f1", refused.last!.1)
            await expectError(.invalidValue, "an increment past the largest integer") {
                try await model.update(id: "f1", FieldUpdate(increment: ["meta.n": 1]))
            }
            #expect(try await model.get(id: "f1").meta?["s"] == "x")
            #expect(try await model.get(id: "f1").meta?["n"] == .int(.max))
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
