// The Swift blocks of docs/rest.md, verbatim, each inside the declarations that give it its context,
// so that each compiles; DataStoreKitTests' `DocsBlockTests` checks that every block is here.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP library docs/rest.md's own client sends through: it answers every request with one
/// stored message, and records what it was asked.
final class ExampleHTTPLibrary: Sendable {
    private let log = Mutex<[String]>([])

    /// The requests performed, as `METHOD url`.
    var requests: [String] { log.withLock { $0 } }

    func perform(
        _ method: String, _ url: URL, _ headers: [String: String], _ body: Data?
    ) async throws -> (Int, [String: String], Data) {
        log.withLock { $0.append("\(method) \(url.absoluteString)") }
        let answer = #"[{"id": "m1", "from_user_key": "12", "message": "hello", "created_ts": 1437108600.0}]"#
        return (200, ["Content-Type": "application/json"], Data(answer.utf8))
    }
}

let myHTTPLibrary = ExampleHTTPLibrary()

/// docs/rest.md's calls.
enum RestDoc {
    /// The first example: a client with a bearer token, and two queries. (It is only compiled: its
    /// server, api.example.com, is not there.)
    static func firstExample(token: String) async throws -> ([Message], [Message]) {
        let client = URLSessionClient(
            timeout: .seconds(10),
            defaultHeaders: ["Authorization": "Bearer \(token)"])
        let messages = Restify<Message>(path: "https://api.example.com/messages", networkClient: client)

        let thread = try await messages.query(
            params: [
                "from_user_key": "1234567890",
                "to_user_key": "0987654321"
            ], options: nil)
        let recent = try await messages.query(
            params: ["created_ts >=": 1437108600],
            options: ["sort": ["created_ts": ["ascending": false]], "limit": 20])
        return (thread, recent)
    }

    /// "Plugging in your own client".
    static func ownClient() -> Restify<Message> {
        struct MyNetworkClient: NetworkClient {
            func send(_ request: NetworkRequest) async throws -> NetworkResponse {
                let (status, headers, body) = try await myHTTPLibrary.perform(
                    request.method.rawValue, request.url, request.headers, request.body)
                return NetworkResponse(status: status, headers: headers, body: body)
            }
        }
        let model = Restify<Message>(path: "http://api.mysite.com/messages", networkClient: MyNetworkClient())
        return model
    }
}

/// docs/rest.md's statement of the protocol, compiled apart from DataStoreREST's own
/// (`protocolIsAsDeclared` checks that the two say the same).
enum StatedProtocol {
    public protocol NetworkClient: Sendable {
        func send(_ request: NetworkRequest) async throws -> NetworkResponse
    }
}

@Suite("The examples of docs/rest.md")
struct RestDocsExampleTests {
    @Test("a client of one's own HTTP library serves Restify")
    func ownClient() async throws {
        let found = try await RestDoc.ownClient().query(params: ["from_user_key": "12"], options: nil)
        #expect(found.map(\.id) == ["m1"])
        #expect(found.map(\.message) == ["hello"])
        #expect(myHTTPLibrary.requests.contains("GET http://api.mysite.com/messages?from_user_key=12"))
    }

    @Test("the protocol docs/rest.md shows is NetworkClient as declared, doc comments aside")
    func protocolIsAsDeclared() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let docs = try String(contentsOf: root.appendingPathComponent("docs/rest.md"), encoding: .utf8)
        let stated = try #require(
            docs.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
                .first { $0.hasPrefix("public protocol NetworkClient") })
        let source = try String(
            contentsOf: root.appendingPathComponent("Sources/DataStoreREST/NetworkClient.swift"), encoding: .utf8)
        let declared = source.split(separator: "\n").filter {
            !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///")
        }.joined(separator: "\n")
        #expect(Self.squeezed(declared).contains(Self.squeezed(stated)), "docs/rest.md states:\n\(stated)")
    }

    /// The text with every run of white space made one space.
    static func squeezed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// docs/rest.md, "Testing": the conformance battery against Restify on the test server, as written there.
@Suite("docs/rest.md's conformance example")
struct RestDocsConformanceExample {
    let server: TestServer
    let client = Models.client

    init() throws { server = try TestServer.running() }

    @Test(arguments: ModelConformance.scenarios)
    func conforms(_ scenario: Scenario) async throws {
        try await scenario.run(Restify<ConformanceMessage>(path: server.freshCollection(), networkClient: client))
    }
}
