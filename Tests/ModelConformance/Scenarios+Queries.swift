// The battery's query scenarios: the seed's parameters, every operator, options, bad keys.
import DataStoreCore
import Testing

extension ModelConformance {
    // See `thread` for the five messages these scenarios query.
    static let queryScenarios: [Scenario] = [
        Scenario("query by equality: two messages from the same sender") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["from_user_key": "1234567890"], ids: ["m1", "m2", "m3"])
            try await expectQuery(model, ["from_user_key": "0987654321"], ids: ["m4"])
            try await expectQuery(model, ["from_user_key =": "5555555555"], ids: ["m5"])
            try await expectQuery(model, ["from_user_key ==": "nobody"], ids: [])
        },
        Scenario("query by compound equality: sender and recipient") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(
                model, ["from_user_key": "1234567890", "to_user_key": "0987654321"], ids: ["m1", "m2"])
            try await expectQuery(model, ["from_user_key": "1234567890", "to_user_key": "5555555555"], ids: ["m3"])
            try await expectQuery(model, ["from_user_key": "0987654321", "to_user_key": "0987654321"], ids: [])
        },
        Scenario("query created_ts >= a time (the seed's range)") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["created_ts >=": 1437108600], ids: ["m2", "m3", "m4", "m5"])
            try await expectQuery(model, ["created_ts >=": 1437118258.5], ids: ["m4", "m5"])
            try await expectQuery(model, ["created_ts >=": 1500000000], ids: [])
        },
        Scenario("numeric equality with an integer matches a Double field") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["created_ts": 1437118258], ids: ["m3"])
            try await expectQuery(model, ["created_ts": 1437118258.0], ids: ["m3"])
            try await expectQuery(model, ["created_ts": 1437118258.5], ids: ["m4"])
        },
        Scenario("query with < and <=") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["created_ts <": 1437108600], ids: ["m1"])
            try await expectQuery(model, ["created_ts <=": 1437108600], ids: ["m1", "m2"])
            try await expectQuery(model, ["created_ts <": 1437108000], ids: [])
        },
        Scenario("query with > and a closed range") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["created_ts >": 1437118258], ids: ["m4", "m5"])
            try await expectQuery(model, ["created_ts >": 1437108000, "created_ts <": 1437118258.5], ids: ["m2", "m3"])
            try await expectQuery(model, ["message >": "hi"], ids: ["m3", "m5", "m2"])
        },
        Scenario("query with != skips messages that lack the field") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["from_user_key !=": "1234567890"], ids: ["m4", "m5"])
            // m4 has no type: a missing field matches no condition, not even !=.
            try await expectQuery(model, ["type !=": "text"], ids: ["m3"])
            try await expectQuery(model, ["type": "text"], ids: ["m1", "m2", "m5"])
        },
        Scenario("query with in") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, ["to_user_key in": ["0987654321", "5555555555"]], ids: ["m1", "m2", "m3"])
            try await expectQuery(model, ["created_ts in": [1437108000, 1437200000.0, 7]], ids: ["m1", "m5"])
            try await expectQuery(model, ["id in": ["m2", "m4", "absent"]], ids: ["m2", "m4"])
            try await expectQuery(model, ["id in": []], ids: [])
        },
        Scenario("query with operators and equality together") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(
                model, ["from_user_key": "1234567890", "created_ts >=": 1437108600], ids: ["m2", "m3"])
            try await expectQuery(model, ["to_user_key": "1234567890", "type !=": "image"], ids: ["m5"])
        },
        Scenario("query with no parameters returns everything") { (model) async throws in
            try await addAll(thread, to: model)
            try await expectQuery(model, nil, ids: ["m1", "m2", "m3", "m4", "m5"])
            try await expectQuery(model, [:], [:], ids: ["m1", "m2", "m3", "m4", "m5"])
        },
        Scenario("query sorted descending in the seed's form, with limit") { (model) async throws in
            try await addAll(thread, to: model)
            let newestFirst: [String: Value] = ["sort": ["created_ts": ["ascending": false]]]
            try await expectQuery(model, nil, newestFirst, ids: ["m5", "m4", "m3", "m2", "m1"], ordered: true)
            var firstTwo = newestFirst
            firstTwo["limit"] = 2
            try await expectQuery(model, nil, firstTwo, ids: ["m5", "m4"], ordered: true)
            try await expectQuery(model, ["from_user_key": "1234567890"], firstTwo, ids: ["m3", "m2"], ordered: true)
        },
        Scenario("query sorted ascending with offset and limit") { (model) async throws in
            try await addAll(thread, to: model)
            let options: [String: Value] = ["sort": [["created_ts": ["ascending": true]]], "offset": 1, "limit": 3]
            try await expectQuery(model, nil, options, ids: ["m2", "m3", "m4"], ordered: true)
            try await expectQuery(model, ["created_ts >=": 1437108600], options, ids: ["m3", "m4", "m5"], ordered: true)
            try await expectQuery(
                model, nil, ["sort": ["created_ts": ["ascending": true]], "offset": 10], ids: [], ordered: true)
            try await expectQuery(
                model, nil, ["sort": ["created_ts": ["ascending": true]], "limit": 0], ids: [], ordered: true)
        },
        Scenario("query sorted by two keys, missing values first") { (model) async throws in
            try await addAll(thread, to: model)
            // type: m4 lacks it (first ascending); ties within "text" broken by created_ts descending.
            let options: [String: Value] = [
                "sort": [["type": ["ascending": true]], ["created_ts": ["ascending": false]]]
            ]
            try await expectQuery(model, nil, options, ids: ["m4", "m3", "m5", "m2", "m1"], ordered: true)
        },
        Scenario("an unknown operator is invalidQuery") { (model) async throws in
            try await addAll(thread, to: model)
            let error = await expectError(.invalidQuery, "query with the operator ~") {
                try await model.query(params: ["created_ts ~": 1437108600], options: nil)
            }
            #expect(
                error?.message.contains("created_ts ~") == true,
                "the message names the key: \(String(describing: error))")
            await expectError(.invalidQuery, "query with three words") {
                try await model.query(params: ["created ts >=": 1], options: nil)
            }
            await expectError(.invalidQuery, "in without an array") {
                try await model.query(params: ["id in": "m1"], options: nil)
            }
        },
        Scenario("a MongoDB-style condition is invalidQuery suggesting this language's form") { (model) async throws in
            try await addAll(thread, to: model)
            let nested = await expectError(.invalidQuery, "an operator inside the value") {
                try await model.query(params: ["created_ts": ["$gt": 1]], options: nil)
            }
            #expect(nested?.message.contains("\"created_ts >\"") == true, "\(String(describing: nested))")
            await expectError(.invalidQuery, "an operator as a key") {
                try await model.query(params: ["$or": [["from_user_key": "1"]]], options: nil)
            }
            await expectError(.invalidQuery, "counting with an operator inside the value") {
                try await model.count(params: ["from_user_key": ["$in": ["1", "2"]]])
            }
            // An object without operator keys is an equality with that object, as before.
            #expect(try await model.query(params: ["meta": ["a": 1]], options: nil).isEmpty)
        },
        Scenario("an unknown or ill-typed option is invalidOption") { (model) async throws in
            await expectError(.invalidOption, "query with the option 'limt'") {
                try await model.query(params: nil, options: ["limt": 2])
            }
            await expectError(.invalidOption, "query with a negative limit") {
                try await model.query(params: nil, options: ["limit": -1])
            }
            await expectError(.invalidOption, "query with a string sort direction") {
                try await model.query(params: nil, options: ["sort": ["created_ts": ["ascending": "no"]]])
            }
        }
    ]
}
