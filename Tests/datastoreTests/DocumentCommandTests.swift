import Foundation
import Testing

@Suite("get, query, add, put, remove")
struct DocumentCommandTests {
    @Test func addCreatesTheStoreAndCollectionAndGeneratesIds() async throws {
        let sandbox = try ToolSandbox()
        let store = sandbox.path("new")
        let missing = try await sandbox.run("add", store, "Note", #"{"text": "hi"}"#)
        #expect(missing.status == 3, "\(missing)")
        #expect(missing.errors == "datastore: no store at \(store): the directory does not exist\n")

        let added = try await sandbox.run(
            "add", store, "Note", #"{"text": "hi", "n": 1.0}"#, "--create", "--id-field", "key")
        #expect(added.status == 0, "\(added)")
        #expect(added.errors.contains("created collection Note (id field key)"))
        let document = try added.json()
        #expect(document["text"] as? String == "hi")
        #expect(added.output.contains("\"n\":1.0"))
        let key = try #require(document["key"] as? String)

        let fetched = try await sandbox.run("get", store, "Note", key)
        #expect(fetched.status == 0, "\(fetched)")
        #expect(fetched.output == added.output)

        let fromStandardInput = try await sandbox.run("add", store, "Note", input: #"{"key": "k1", "text": "piped"}"#)
        #expect(fromStandardInput.status == 0, "\(fromStandardInput)")
        #expect(try fromStandardInput.json()["key"] as? String == "k1")

        let otherIDField = try await sandbox.run("add", store, "Note", "{}", "--id-field", "id")
        #expect(otherIDField.status == 4)
        #expect(otherIDField.errors == "datastore: collection Note is identified by the field key, not id\n")
    }

    @Test func addRefusesADuplicateAndMalformedDocuments() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 3)
        let duplicate = try await sandbox.run("add", store, "Message", #"{"id": 1}"#)
        #expect(duplicate.status == 4, "\(duplicate)")
        #expect(duplicate.errors.contains("1"))
        #expect(duplicate.output.isEmpty)

        let malformed = try await sandbox.run("add", store, "Message", #"{"id": 7,"#)
        #expect(malformed.status == 4)
        #expect(malformed.errors.hasPrefix("datastore: the document is not valid JSON ("))

        let notAnObject = try await sandbox.run("add", store, "Message", "[1]")
        #expect(notAnObject.status == 4)
        #expect(notAnObject.errors == "datastore: the document is a JSON array, not a JSON object\n")

        let badID = try await sandbox.run("add", store, "Message", #"{"id": true}"#)
        #expect(badID.status == 4)
        #expect(badID.errors.contains("ids are non-empty strings or integers"))
    }

    @Test func getPrintsJSONOrATableAndNamesAMissingId() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 3)
        let json = try await sandbox.run("get", store, "Message", "2")
        #expect(json.status == 0)
        #expect(json.output == #"{"created_ts":1437108602,"from_user_key":"u2","id":2,"text":"message 2"}"# + "\n")

        let table = try await sandbox.run("get", store, "Message", "2", "--table")
        #expect(
            table.lines == [
                "field          value",
                "-------------  ----------",
                "id             2",
                "created_ts     1437108602",
                "from_user_key  u2",
                "text           message 2"
            ])

        let missing = try await sandbox.run("get", store, "Message", "99")
        #expect(missing.status == 3)
        #expect(missing.errors == "datastore: no object with id 99 in Message\n")
        let stringID = try await sandbox.run("get", store, "Message", "\"2\"")
        #expect(stringID.status == 3)
        #expect(stringID.errors == "datastore: no object with id \"2\" in Message\n")
    }

    @Test func putReplacesAndRemoveRemoves() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 3)
        let put = try await sandbox.run("put", store, "Message", "1", #"{"text": "edited", "id": 5}"#)
        #expect(put.status == 0, "\(put)")
        #expect(put.output == #"{"id":1,"text":"edited"}"# + "\n")
        let fetched = try await sandbox.run("get", store, "Message", "1")
        #expect(fetched.output == put.output)

        let removed = try await sandbox.run("remove", store, "Message", "1")
        #expect(removed.status == 0)
        #expect(removed.output == put.output)
        let gone = try await sandbox.run("get", store, "Message", "1")
        #expect(gone.status == 3)
        let again = try await sandbox.run("remove", store, "Message", "1")
        #expect(again.status == 3)
        #expect(again.errors.contains("no object with id 1"))
    }

    @Test func queryFiltersSortsAndPages() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 10)
        let run = try await sandbox.run(
            "query", store, "Message", #"{"created_ts >=": 1437108603, "from_user_key": "u0"}"#,
            "--sort", "-created_ts", "--limit", "2", "--offset", "1")
        #expect(run.status == 0, "\(run)")
        #expect(try run.jsonLines().map { $0["id"] as? Int } == [6, 3])

        let all = try await sandbox.run("query", store, "Message", "--sort=id")
        #expect(try all.jsonLines().count == 10)
        let count = try await sandbox.run(
            "query", store, "Message", #"{"text in": ["message 1", "message 4"]}"#, "--count")
        #expect(count.output == #"{"count":2}"# + "\n")

        let table = try await sandbox.run("query", store, "Message", #"{"id <": 2}"#, "--sort", "id", "--table")
        #expect(
            table.lines == [
                "id  created_ts  from_user_key  text",
                "--  ----------  -------------  ---------",
                "0   1437108600  u0             message 0",
                "1   1437108601  u1             message 1",
                "(2 documents)"
            ])
    }

    @Test func explainPrintsThePlan() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 10)
        let index = try await sandbox.run("index", "add", store, "Message", "created_ts")
        #expect(index.status == 0, "\(index)")
        let run = try await sandbox.run(
            "query", store, "Message", #"{"created_ts >=": 1437108600}"#,
            "--sort", "-created_ts", "--limit", "3", "--explain", "--table")
        #expect(run.status == 0, "\(run)")
        #expect(
            run.output == "index scan of created_ts on Message (created_ts in [1437108600, inf]), backward; "
                + "filter: created_ts >= 1437108600; sort: created_ts desc from index order; limit 3 pushed into the scan\n"
        )
        let full = try await sandbox.run("query", store, "Message", #"{"text": "x"}"#, "--explain")
        #expect(
            try full.json()["plan"] as? String
                == "full scan of Message; filter: text == \"x\"; order: unspecified (scan order)")
    }

    @Test func queryErrorsNameTheProblem() async throws {
        let sandbox = try ToolSandbox()
        let store = try await sandbox.seededStore(count: 2)
        let badKey = try await sandbox.run("query", store, "Message", #"{"created_ts =>": 1}"#)
        #expect(badKey.status == 4)
        #expect(
            badKey.errors == "datastore: query key \"created_ts =>\" has an unknown operator \"=>\"; "
                + "the operators are =, ==, !=, <, <=, >, >=, in, !in, ^= and exists\n")
        let malformed = try await sandbox.run("query", store, "Message", #"{"a": "#)
        #expect(malformed.status == 4)
        #expect(malformed.errors.hasPrefix("datastore: the PARAMS argument is not valid JSON"))
        let badSort = try await sandbox.run("query", store, "Message", "--sort", "a,a")
        #expect(badSort.status == 4)
        #expect(badSort.errors == "datastore: query option \"sort\" names the field \"a\" twice\n")
        let badLimit = try await sandbox.run("query", store, "Message", "--limit", "ten")
        #expect(badLimit.status == 2)
        #expect(badLimit.errors == "datastore: option --limit needs a non-negative integer, not \"ten\"\n")
        let unknown = try await sandbox.run("query", store, "Mesage")
        #expect(unknown.status == 3)
        #expect(
            unknown.errors == "datastore: no collection Mesage in the store at \(store); the collections are Message\n")
    }
}
