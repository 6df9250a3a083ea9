// Errors against the real test server: statuses, bad bodies, a hung answer, a closed port.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Restify errors from a real server")
struct RestifyErrorTests {
    /// A model whose requests all go to `/faults/<kind>/…` on the test server.
    func faulty(_ kind: String, timeout: Duration = .seconds(10)) throws -> Restify<ConformanceMessage> {
        Restify(path: try TestServer.running().url("faults/\(kind)"), networkClient: URLSessionClient(timeout: timeout))
    }

    @Test("a 404 on get and remove is notFound naming the id")
    func notFound() async throws {
        let model = try Models.freshMessages()
        for call in ["get", "remove"] {
            let error = try #require(
                await dataStoreError {
                    call == "get" ? try await model.get(id: "ghost-42") : try await model.remove(id: "ghost-42")
                })
            #expect(error.code == .notFound)
            #expect(error.message.contains("ghost-42"))
            let status = try #require(error.underlying as? HTTPStatusError)
            #expect(status.status == 404)
            #expect(status.method == (call == "get" ? .get : .delete))
        }
    }

    @Test("a 404 on a query is httpStatus, not notFound")
    func notFoundOnQuery() async throws {
        let error = try #require(await dataStoreError { try await faulty("404").query(params: ["a": 1], options: nil) })
        #expect(error.code == .httpStatus)
        #expect((error.underlying as? HTTPStatusError)?.status == 404)
    }

    @Test("a 500 with a body names status, method, URL and the body")
    func serverError() async throws {
        let model = try faulty("500")
        let error = try #require(await dataStoreError { try await model.get(id: "7") })
        #expect(error.code == .httpStatus)
        let url = try TestServer.running().url("faults/500/7")
        for part in ["500", "GET", url, "simulated failure: the database is on fire"] {
            #expect(error.message.contains(part), "'\(part)' missing from: \(error.message)")
        }
        let status = try #require(error.underlying as? HTTPStatusError)
        #expect(status.status == 500)
        #expect(status.url.absoluteString == url)
        #expect(status.bodyExcerpt == "simulated failure: the database is on fire")

        let putError = try #require(
            await dataStoreError {
                try await model.put(id: "7", object: ConformanceMessage(id: "7", message: "x"))
            })
        #expect(putError.code == .httpStatus)
        #expect(putError.message.contains("PUT"))
    }

    @Test("the body excerpt of a long error answer is at most 512 bytes")
    func boundedExcerpt() async throws {
        let error = try #require(await dataStoreError { try await faulty("big500").all() })
        #expect(error.code == .httpStatus)
        let status = try #require(error.underlying as? HTTPStatusError)
        let excerpt = try #require(status.bodyExcerpt.components(separatedBy: "…").first)
        #expect(excerpt.utf8.count <= HTTPStatusError.bodyExcerptLimit)
        #expect(excerpt.utf8.count > 500, "the excerpt uses most of its room")
        #expect(excerpt.allSatisfy { $0 == "é" || $0 == "€" }, "no character is cut in half")
        #expect(status.bodyExcerpt.contains("4100 bytes"))
        #expect(error.message.utf8.count < 1024)
    }

    @Test("malformed JSON is badResponse")
    func badJSON() async throws {
        let error = try #require(await answerError { try await faulty("badjson").get(id: "1") })
        #expect(error.code == .badResponse)
        #expect(error.message.contains("not JSON"))
        #expect(error.message.contains("cut off"), "the message shows the body: \(error.message)")
    }

    @Test("an object where an array is expected is badResponse", arguments: ["query", "all"])
    func objectNotArray(_ call: String) async throws {
        let model = try faulty("object-not-array")
        let error = try #require(
            await answerError {
                call == "all" ? try await model.all() : try await model.query(params: ["id": "1"], options: nil)
            })
        #expect(error.code == .badResponse)
        #expect(error.message.contains("an object where a JSON array of objects was expected"), "\(error.message)")
    }

    @Test("an array where an object is expected is badResponse", arguments: ["get", "remove", "add", "put"])
    func arrayNotObject(_ call: String) async throws {
        let model = try faulty("array-not-object")
        let message = ConformanceMessage(id: "1", message: "x")
        let error = try #require(
            await answerError { () async throws -> ConformanceMessage in
                switch call {
                case "get": try await model.get(id: "1")
                case "remove": try await model.remove(id: "1")
                case "add": try await model.add(object: message)
                default: try await model.put(id: "1", object: message)
                }
            })
        #expect(error.code == .badResponse)
        #expect(error.message.contains("an array where a JSON object was expected"), "\(error.message)")
    }

    @Test("other wrong shapes are badResponse", arguments: ["not-objects", "scalar", "empty", "huge-number"])
    func wrongShapes(_ kind: String) async throws {
        let model = try faulty(kind)
        let list = try #require(await answerError { try await model.all() })
        #expect(list.code == .badResponse, "\(kind) all: \(list)")
        let one = try #require(await answerError { try await model.get(id: "1") })
        #expect(one.code == .badResponse, "\(kind) get: \(one)")
    }

    @Test("a hung answer times out as a network error", .timeLimit(.minutes(1)))
    func hang() async throws {
        let model = try faulty("hang", timeout: .seconds(1))
        let clock = ContinuousClock()
        let start = clock.now
        let error = try #require(await dataStoreError { try await model.get(id: "1") })
        #expect(clock.now - start < .seconds(25), "the timeout ended the wait, not the server")
        #expect(error.code == .network)
        #expect(error.message.contains("timed out"), "\(error.message)")
        #expect((error.underlying as? URLError)?.code == .timedOut)
    }

    @Test("a closed port is a network error: connection refused")
    func closedPort() async throws {
        let server = try TestServer.running()
        let answer = try await URLSessionClient(timeout: .seconds(5)).get(URL(string: server.url("_closed-port"))!)
        let port = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])["port"] as? Int
        let model = Restify<ConformanceMessage>(
            path: "http://127.0.0.1:\(try #require(port))/messages",
            networkClient: URLSessionClient(timeout: .seconds(5)))
        let error = try #require(await dataStoreError { try await model.all() })
        #expect(error.code == .network)
        #expect(error.message.contains("connection refused"), "\(error.message)")
        #expect((error.underlying as? URLError)?.code == .cannotConnectToHost)
    }
}
