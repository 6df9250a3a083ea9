// The battery's scenarios for get, put, add, remove and all (the seed's scenarios first).
import DataStoreCore
import Foundation
import Testing

extension ModelConformance {
    static let basicScenarios: [Scenario] = [
        Scenario("add then get") { (model) async throws in
            let message = ConformanceMessage(
                id: "m1", from: "1234567890", to: "0987654321",
                message: "hello", type: "text", createdTS: 1437118258)
            let added = try await model.add(object: message)
            #expect(added == message)
            let fetched = try await model.get(id: "m1")
            #expect(fetched == message)
        },
        Scenario("add, remove, then get is notFound") { (model) async throws in
            _ = try await model.add(object: ConformanceMessage(id: "m1", from: "1", message: "bye"))
            _ = try await model.remove(id: "m1")
            await expectError(.notFound, "get after remove") { try await model.get(id: "m1") }
        },
        Scenario("put changes the message") { (model) async throws in
            let original = ConformanceMessage(id: "m1", from: "1", to: "2", message: "draft", createdTS: 1437118258)
            _ = try await model.add(object: original)
            let changed = original.with(message: "final")
            let stored = try await model.put(id: "m1", object: changed)
            #expect(stored == changed)
            #expect(try await model.get(id: "m1") == changed)
            #expect(try await model.all().count == 1)
        },
        Scenario("put inserts when the id is absent") { (model) async throws in
            let message = ConformanceMessage(id: "p1", from: "1", message: "upsert")
            #expect(try await model.put(id: "p1", object: message) == message)
            #expect(try await model.get(id: "p1") == message)
        },
        Scenario("put stores the object under the id given") { (model) async throws in
            let message = ConformanceMessage(id: "other", from: "1", message: "renamed")
            let stored = try await model.put(id: "p2", object: message)
            #expect(stored.id == "p2")
            #expect(try await model.get(id: "p2") == message.with(id: "p2"))
            await expectError(.notFound, "get of the object's own id") { try await model.get(id: "other") }
        },
        Scenario("binary data field round-trips") { (model) async throws in
            let bytes = Data((0...255).map { UInt8($0) } + [0, 0, 0xFF, 0x7B, 0x22])
            let message = ConformanceMessage(id: "b1", from: "1", attachment: bytes)
            #expect(try await model.add(object: message).attachment == bytes)
            let fetched = try await model.get(id: "b1")
            #expect(fetched.attachment == bytes)
            let empty = ConformanceMessage(id: "b2", attachment: Data())
            _ = try await model.add(object: empty)
            #expect(try await model.get(id: "b2").attachment == Data())
        },
        Scenario("nested dictionary field round-trips") { (model) async throws in
            let meta: Document = [
                "device": ["os": "linux", "version": 6, "beta": false],
                "tags": ["a", "b", 3],
                "score": 0.25,
                "count": 42,
                "nothing": nil,
                "deep": ["deeper": ["deepest": "yes"]]
            ]
            let message = ConformanceMessage(id: "n1", from: "1", meta: meta)
            _ = try await model.add(object: message)
            let fetched = try await model.get(id: "n1")
            #expect(fetched.meta == meta)
            #expect(fetched.meta?["count"]?.typeName == "int", "an integer stays an integer")
            #expect(fetched.meta?["score"]?.typeName == "double", "a double stays a double")
            #expect(fetched.meta?["device"]?.objectValue?["beta"] == false, "a Boolean stays a Boolean")
        },
        Scenario("a Double field keeps its type, integral or not") { (model) async throws in
            let whole = ConformanceMessage(id: "d1", createdTS: 1437118258)
            let fraction = ConformanceMessage(id: "d2", createdTS: 0.1)
            _ = try await model.add(object: whole)
            _ = try await model.add(object: fraction)
            #expect(try await model.get(id: "d1").created_ts == 1437118258)
            #expect(try await model.get(id: "d2").created_ts == 0.1)
        },
        Scenario("get and remove of an absent id are notFound") { (model) async throws in
            _ = try await model.add(object: ConformanceMessage(id: "present", message: "here"))
            await expectError(.notFound, "get of an absent string id") { try await model.get(id: "absent") }
            await expectError(.notFound, "remove of an absent string id") { try await model.remove(id: "absent") }
            await expectError(.notFound, "get of an absent integer id") { try await model.get(id: 404) }
            await expectError(.notFound, "remove of an absent integer id") { try await model.remove(id: 404) }
            #expect(try await model.all().count == 1, "a failed remove removes nothing")
        },
        Scenario("get and remove of a message without an id (null) are notFound") { (model) async throws in
            let orphan = ConformanceMessage(from: "1", message: "no id")
            let id: Value = orphan.id.map(Value.string) ?? .null
            await expectError(.notFound, "get with a null id") { try await model.get(id: id) }
            await expectError(.notFound, "remove with a null id") { try await model.remove(id: id) }
        },
        Scenario("ids with reserved URL characters work") { (model) async throws in
            let ids = ["a b", "a/b", "50%", "q?x=1&y", "ü#1", "+plus"]
            for id in ids {
                _ = try await model.add(object: ConformanceMessage(id: id, message: id))
            }
            for id in ids {
                #expect(try await model.get(id: .string(id)).message == id, "get of id \(id)")
            }
            #expect(try await model.remove(id: "a/b").id == "a/b")
            #expect(try await model.all().count == ids.count - 1)
        },
        Scenario("add of a duplicate id is duplicateID and changes nothing") { (model) async throws in
            let first = ConformanceMessage(id: "dup", from: "1", message: "first")
            _ = try await model.add(object: first)
            await expectError(.duplicateID, "second add of id dup") {
                try await model.add(object: ConformanceMessage(id: "dup", from: "2", message: "second"))
            }
            #expect(try await model.get(id: "dup") == first)
            #expect(try await model.all().count == 1)
        },
        Scenario("add without an id generates unique, non-empty ids") { (model) async throws in
            var ids: [String] = []
            for index in 0..<5 {
                let added = try await model.add(object: ConformanceMessage(from: "1", message: "n\(index)"))
                let id = try #require(added.id, "add must return the generated id")
                #expect(!id.isEmpty)
                #expect(added.message == "n\(index)")
                ids.append(id)
            }
            #expect(Set(ids).count == ids.count, "generated ids repeat: \(ids)")
            for (index, id) in ids.enumerated() {
                #expect(try await model.get(id: .string(id)).message == "n\(index)")
            }
        },
        Scenario("remove returns the removed object") { (model) async throws in
            let message = ConformanceMessage(
                id: "r1", from: "1", to: "2", message: "going", createdTS: 1437118258,
                attachment: Data([1, 2, 3]), meta: ["k": "v"])
            _ = try await model.add(object: message)
            _ = try await model.add(object: ConformanceMessage(id: "r2", message: "staying"))
            #expect(try await model.remove(id: "r1") == message)
            #expect(ids(try await model.all()) == ["r2"])
        },
        Scenario("all returns everything") { (model) async throws in
            #expect(try await model.all().isEmpty)
            try await addAll(thread, to: model)
            let everything = try await model.all()
            #expect(ids(everything).sorted() == ["m1", "m2", "m3", "m4", "m5"])
            for message in thread {
                #expect(everything.contains(message), "all() lacks \(message)")
            }
        }
    ]
}
