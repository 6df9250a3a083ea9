// The default client against the test server: headers, bodies, statuses.
import DataStoreREST
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    @Test(
        "a GET, PUT or DELETE whose connection is reset is sent once more; a POST or PATCH is not",
        arguments: [
            HTTPMethod.get, .put, .delete, .post, .patch
        ])
    func resendsWhatIsIdempotent(_ method: HTTPMethod) async throws {
        let server = try TestServer.running()
        let client = URLSessionClient(timeout: .seconds(10))
        let token = UUID().uuidString
        let url = URL(string: server.url("faults/drop-once/\(token)"))!
        let body: Data? = method == .get || method == .delete ? nil : Data(#"{"id": "1"}"#.utf8)
        let resendable = [HTTPMethod.get, .put, .delete].contains(method)
        func attempts() async throws -> Int? {
            let answer = try await client.get(URL(string: server.url("faults/attempts/\(token)"))!)
            return try (JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["attempts"] as? Int
        }
        do {
            let answer = try await client.send(NetworkRequest(method: method, url: url, body: body))
            #expect(resendable, "\(method) was sent again")
            #expect(answer.status == 200)
            #expect(try await attempts() == 2)
        } catch let error as URLError {
            #expect(!resendable, "\(method) was not sent again: \(error)")
            #expect(error.code == .networkConnectionLost)
            #expect(try await attempts() == 1)
        }
    }
}
