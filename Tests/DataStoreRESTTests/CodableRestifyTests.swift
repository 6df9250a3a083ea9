// Restify with a Codable type against the test server.
import DataStoreCore
import DataStoreREST
import Foundation
import Testing

/// A Codable object with every kind of field.
struct Note: Codable, Sendable, Equatable {
    struct Author: Codable, Sendable, Equatable {
        var name: String
        var karma: Int
    }

    var id: String?
    var title: String
    var stars: Int
    var price: Double
    var done: Bool
    var tags: [String]
    var blob: Data
    var author: Author
    var due: Date?
}

@Suite("Restify with Codable objects")
struct CodableRestifyTests {
    func model() throws -> Restify<Note> {
        Restify<Note>(path: try TestServer.running().freshCollection(), networkClient: Models.client)
    }

    func note(_ id: String?, _ title: String, stars: Int, price: Double = 1) -> Note {
        Note(
            id: id, title: title, stars: stars, price: price, done: stars > 3, tags: ["a", title],
            blob: Data([0, 1, 2, 255]), author: .init(name: "ann", karma: stars * 10),
            due: Date(timeIntervalSince1970: 1437118258.25))
    }

    @Test("add, get, query, put, remove round-trip a Codable type")
    func roundTrip() async throws {
        let notes = try model()
        let first = note("n1", "first", stars: 5, price: 2.0)
        #expect(try await notes.add(object: first) == first)
        #expect(try await notes.get(id: "n1") == first)
        _ = try await notes.add(object: note("n2", "second", stars: 2))
        let generated = try await notes.add(object: note(nil, "third", stars: 4))
        #expect(generated.id?.isEmpty == false)

        let good = try await notes.query(params: ["stars >=": 4], options: ["sort": ["stars": ["ascending": false]]])
        #expect(good.map(\.title) == ["first", "third"])
        #expect(try await notes.query(params: ["price": 2], options: nil).map(\.id) == ["n1"])
        #expect(try await notes.query(params: ["done": true, "tags": "first"], options: nil).map(\.id) == ["n1"])

        var changed = first
        changed.title = "changed"
        #expect(try await notes.put(id: "n1", object: changed) == changed)
        #expect(try await notes.remove(id: "n1") == changed)
        #expect(try await notes.all().count == 2)
        #expect(await dataStoreError { try await notes.get(id: "n1") }?.code == .notFound)
    }

    @Test("a server object missing a required field is badResponse")
    func missingField() async throws {
        let server = try TestServer.running()
        let collection = server.freshCollection()
        let messages = Restify<Note>(
            path: collection, networkClient: Models.client,
            mapping: ObjectMapping(
                idField: "id", encode: { _ in ["id": "half", "title": "no stars"] },
                decode: { _ in throw CancellationError() }))
        _ = try? await messages.add(object: note("half", "x", stars: 1))
        let notes = Restify<Note>(path: collection, networkClient: Models.client)
        let error = await dataStoreError { try await notes.get(id: "half") }
        #expect(error?.code == .badResponse)
        #expect(error?.message.contains("Note") == true)
    }
}
