// The default client against the test server: headers, bodies, statuses.
import DataStoreREST
import Foundation
import Testing

@Suite("URLSessionClient")
struct URLSessionClientTests {
    @Test("sends default headers, the request's own headers and the body; returns any status")
    func echo() async throws {
        let server = try TestServer.running()
        let client = URLSessionClient(
            timeout: .seconds(5), defaultHeaders: ["Authorization": "Bearer t0ken", "X-Api": "default"])
        #expect(client.timeout == .seconds(5))
        let answer = try await client.post(
            URL(string: server.url("_echo/x?q=1"))!, body: Data("payload".utf8),
            headers: ["x-api": "own"])
        #expect(answer.status == 200)
        #expect(answer.header("content-type") == "application/json")
        let echo = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        let headers = try #require(echo["headers"] as? [String: String])
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(lowered["authorization"] == "Bearer t0ken")
        #expect(lowered["x-api"] == "own")
        #expect(echo["method"] as? String == "POST")
        #expect(echo["path"] as? String == "/_echo/x?q=1")
        #expect(echo["body"] as? String == "payload")

        let missing = try await client.get(URL(string: server.url("faults/404/y"))!)
        #expect(missing.status == 404)
        #expect(!missing.isSuccess)
        let deleted = try await client.delete(URL(string: server.url("_echo/z"))!)
        #expect(deleted.isSuccess)
        let put = try await client.put(URL(string: server.url("_echo/z"))!, body: nil)
        #expect(put.isSuccess)
    }
}
