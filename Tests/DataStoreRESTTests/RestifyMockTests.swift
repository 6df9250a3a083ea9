// The seed's Restify tests with a mock client, and the exact requests Restify sends.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Restify with a mock client")
struct RestifyMockTests {
    static let base = "http://api.mysite.com/messages"

    @Test("a successful get deserializes an object (the seed's Message class)")
    func successfulGet() async throws {
        let client = MockClient(
            status: 200,
            json: """
                {"id": "42", "from_user_key": "1234567890", "to_user_key": "0987654321",
                 "message": "hello", "type": "text", "created_ts": 1437118258.0}
                """)
        let model = Restify<Message>(path: Self.base, networkClient: client)
        let message = try await model.get(id: "42")
        #expect(message.id == "42")
        #expect(message.from_user_key == "1234567890")
        #expect(message.message == "hello")
        #expect(message.created_ts == 1437118258)
        #expect(client.requests.map(\.description) == ["GET http://api.mysite.com/messages/42"])
    }

    @Test("a failing network call returns an error and no object")
    func failingCall() async throws {
        let client = MockClient { _ in throw URLError(.notConnectedToInternet) }
        let model = Restify<Message>(path: Self.base, networkClient: client)
        var object: Message?
        var caught: (any Error)?
        do { object = try await model.get(id: "42") } catch { caught = error }
        #expect(object == nil)
        let error = try #require(caught as? DataStoreError)
        #expect(error.code == .network)
        #expect((error.underlying as? URLError)?.code == .notConnectedToInternet)
        #expect(error.message.contains("GET http://api.mysite.com/messages/42"))
    }

    @Test("a failing network call reports an error and no object through the callback")
    func failingCallback() async throws {
        let client = MockClient { _ in throw URLError(.cannotConnectToHost) }
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        let (error, object) = await withCheckedContinuation { continuation in
            model.get(id: "42") { error, object in continuation.resume(returning: (error, object)) }
        }
        #expect(object == nil)
        #expect((error as? DataStoreError)?.code == .network)
    }

    @Test("a successful query reports objects through the callback")
    func successfulCallback() async throws {
        let client = MockClient(status: 200, json: #"[{"id": "1", "message": "a"}, {"id": "2", "message": "b"}]"#)
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        let (error, objects) = await withCheckedContinuation { continuation in
            model.query(params: ["from_user_key": "1234567890", "to_user_key": "0987654321"], options: nil) {
                continuation.resume(returning: ($0, $1))
            }
        }
        #expect(error == nil)
        #expect(objects?.map(\.message) == ["a", "b"])
        #expect(
            client.requests.first?.url.absoluteString
                == "\(Self.base)?from_user_key=1234567890&to_user_key=0987654321")
    }

    @Test("query keys with operators and values are sent verbatim, percent-encoded")
    func queryURL() async throws {
        let client = MockClient(status: 200, json: "[]")
        let model = Restify<ConformanceMessage>(path: Self.base + "/", networkClient: client)
        _ = try await model.query(
            params: [
                "created_ts >=": 1437108600, "from_user_key": "12 & 13", "score <": 0.5, "seen": true,
                "to_user_key in": ["a", "b"], "created_ts <": 1437118258.0
            ],
            options: ["sort": ["created_ts": ["ascending": false]], "limit": 10, "offset": 5])
        let url = try #require(client.requests.first?.url.absoluteString)
        #expect(
            url == Self.base
                + "?created_ts%20%3C=1437118258&created_ts%20%3E%3D=1437108600&from_user_key=12%20%26%2013"
                + "&score%20%3C=0.5&seen=true&to_user_key%20in=%5B%22a%22%2C%22b%22%5D"
                + "&_sort=%5B%7B%22created_ts%22%3A%7B%22ascending%22%3Afalse%7D%7D%5D&_offset=5&_limit=10")
    }

    @Test("a bad query is refused before anything is sent")
    func badQueryNotSent() async throws {
        let client = MockClient(status: 200, json: "[]")
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        #expect(
            await dataStoreError { try await model.query(params: ["created_ts ~": 1], options: nil) }?.code
                == .invalidQuery)
        #expect(
            await dataStoreError { try await model.query(params: ["_limit": 1], options: nil) }?.code == .invalidQuery)
        #expect(
            await dataStoreError { try await model.query(params: nil, options: ["top": 1]) }?.code == .invalidOption)
        #expect(
            await dataStoreError { try await model.query(params: ["x": .double(.nan)], options: nil) }?.code
                == .invalidQuery)
        #expect(client.requests.isEmpty)
    }

    @Test("each call uses its method and URL; ids are one percent-encoded path segment")
    func mapping() async throws {
        let client = MockClient { request in
            let body = request.body ?? Data(#"{"id": "x"}"#.utf8)
            return NetworkResponse(
                status: request.method == .post ? 201 : 200,
                body: request.url.path.hasSuffix("/all") ? Data("[]".utf8) : body)
        }
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        let message = ConformanceMessage(id: "a/b c", message: "m")
        _ = try await model.get(id: "a/b c")
        _ = try await model.put(id: "a/b c", object: message)
        _ = try await model.add(object: message)
        _ = try await model.remove(id: 42)
        _ = try await model.all()
        #expect(
            client.requests.map(\.description) == [
                "GET \(Self.base)/a%2Fb%20c",
                "PUT \(Self.base)/a%2Fb%20c",
                "POST \(Self.base)",
                "DELETE \(Self.base)/42",
                "GET \(Self.base)/all"
            ])
        let put = client.requests[1]
        #expect(put.header("content-type") == "application/json; charset=utf-8")
        #expect(String(decoding: put.body ?? Data(), as: UTF8.self) == #"{"id":"a/b c","message":"m"}"#)
    }

    @Test("a seed Message without an id is posted without one, and doubles stay doubles")
    func seedAddBody() async throws {
        // Echo the body with an id added, byte for byte: re-serializing with JSONSerialization would
        // write 1437118258.0 as 1437118258 on Linux (as JavaScript servers do), an Int.
        let client = MockClient { request in
            let body = request.body ?? Data()
            return NetworkResponse(status: 201, body: Data(#"{"id":"generated-1","#.utf8) + body.dropFirst())
        }
        let model = Restify<Message>(path: Self.base, networkClient: client)
        let message = Message(dictionary: ["from_user_key": "1", "message": "hi", "created_ts": 1437118258.0])
        let added = try await model.add(object: message)
        #expect(added.id == "generated-1")
        #expect(added.created_ts == 1437118258)
        let body = String(decoding: client.requests.first?.body ?? Data(), as: UTF8.self)
        #expect(!body.contains(#""id""#), "the empty id is left out: \(body)")
        #expect(body.contains(#""created_ts":1437118258.0"#), "\(body)")
    }

    @Test("statuses map to codes: 409 on add is duplicateID, 404 on put is httpStatus")
    func statusCodes() async throws {
        let conflict = Restify<ConformanceMessage>(
            path: Self.base, networkClient: MockClient(status: 409, json: #"{"error": "exists"}"#))
        let duplicate = await dataStoreError {
            try await conflict.add(object: ConformanceMessage(id: "d", message: "x"))
        }
        #expect(duplicate?.code == .duplicateID)
        #expect(duplicate?.message.contains("d") == true)
        let missing = Restify<ConformanceMessage>(path: Self.base, networkClient: MockClient(status: 404, json: "{}"))
        #expect(
            await dataStoreError { try await missing.put(id: "p", object: ConformanceMessage(message: "x")) }?.code
                == .httpStatus)
        let teapot = Restify<ConformanceMessage>(
            path: Self.base, networkClient: MockClient(status: 418, json: "short and stout"))
        let error = await dataStoreError { try await teapot.get(id: "t") }
        #expect(error?.code == .httpStatus)
        #expect(error?.message == "GET \(Self.base)/t answered HTTP 418: short and stout")
        let text = error.map { "\($0)" } ?? ""
        #expect(text.components(separatedBy: "answered HTTP").count == 2, "the status is said once: \(text)")
        let duplicateText = duplicate.map { "\($0)" } ?? ""
        #expect(duplicateText.components(separatedBy: "answered HTTP").count == 2, "\(duplicateText)")
    }

    @Test("empty answers: put and add return what was sent, remove is badResponse")
    func emptyAnswers() async throws {
        let model = Restify<ConformanceMessage>(
            path: Self.base, networkClient: MockClient { _ in NetworkResponse(status: 204) })
        let message = ConformanceMessage(id: "e", message: "x", createdTS: 2.5)
        #expect(try await model.put(id: "e", object: message) == message)
        #expect(try await model.add(object: message) == message)
        #expect(
            await dataStoreError { try await model.add(object: ConformanceMessage(message: "no id")) }?.code
                == .badResponse)
        #expect(await dataStoreError { try await model.remove(id: "e") }?.code == .badResponse)
    }

    @Test("ids that cannot be sent are refused without a request")
    func badIDs() async throws {
        let client = MockClient(status: 200, json: "{}")
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        #expect(await dataStoreError { try await model.get(id: "") }?.code == .notFound)
        #expect(await dataStoreError { try await model.remove(id: nil) }?.code == .notFound)
        #expect(await dataStoreError { try await model.get(id: true) }?.code == .invalidID)
        #expect(await dataStoreError { try await model.put(id: nil, object: ConformanceMessage()) }?.code == .invalidID)
        #expect(await dataStoreError { try await model.put(id: 1.5, object: ConformanceMessage()) }?.code == .invalidID)
        #expect(client.requests.isEmpty)
    }

    @Test("a path that is not a URL is a network error")
    func badPath() async throws {
        let model = Restify<ConformanceMessage>(path: "not a url", networkClient: MockClient(status: 200, json: "[]"))
        let error = await dataStoreError { try await model.all() }
        #expect(error?.code == .network)
        #expect(error?.message.contains("not a url") == true)
    }

    @Test("credentials travel in headers, never in the body")
    func credentialsInHeaders() async throws {
        let mock = MockClient { request in NetworkResponse(status: 201, body: request.body ?? Data()) }
        let client = mock.withHeaders(["Authorization": "Bearer s3cret", "Accept": "text/plain"])
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: client)
        _ = try await model.add(object: ConformanceMessage(id: "1", message: "hi"))
        let request = try #require(mock.requests.first)
        #expect(request.header("authorization") == "Bearer s3cret")
        #expect(request.header("accept") == "application/json", "the request's own header wins")
        #expect(!String(decoding: request.body ?? Data(), as: UTF8.self).contains("s3cret"))
        #expect(!request.description.contains("s3cret"))
    }

    @Test("an error the client invents becomes a network error wrapping it")
    func customClientError() async throws {
        struct Unplugged: Error {}
        let model = Restify<ConformanceMessage>(path: Self.base, networkClient: MockClient { _ in throw Unplugged() })
        let error = await dataStoreError { try await model.all() }
        #expect(error?.code == .network)
        #expect(error?.underlying is Unplugged)
        let passThrough = Restify<ConformanceMessage>(
            path: Self.base, networkClient: MockClient { _ in throw DataStoreError(.closed, "client closed") })
        #expect(await dataStoreError { try await passThrough.all() }?.code == .closed)
    }

    @Test("a user name and password in the URL never appear in messages")
    func redactedURL() async throws {
        let model = Restify<ConformanceMessage>(
            path: "http://alice:pa55@api.mysite.com/m",
            networkClient: MockClient(status: 500, json: "boom"))
        let error = try #require(await dataStoreError { try await model.all() })
        #expect(!error.message.contains("pa55"))
        #expect(error.message.contains("http://api.mysite.com/m/all"), "\(error.message)")
    }
}
