// The chat service's storage layer run end to end against the store at the location given: a
// directory (an LMDB store) or a postgresql:// URL. The same code, unchanged, for both.
//
//   ChatExample /var/lib/chat          ChatExample postgresql://chat@db/chat
import DataStoreKit
import DataStorePostgres
import Foundation

/// Opens the store `location` names: how the store is opened is the only thing that differs.
func openStore(_ location: String) async throws -> any DocumentStore {
    if location.hasPrefix("postgresql://") || location.hasPrefix("postgres://") {
        return try await PostgresStore.open(url: location)
    }
    return try DataStore.open(path: location)
}

/// Fails the run with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ExampleFailure(message: message()) }
}

struct ExampleFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

func run(_ location: String) async throws {
    let store = try await openStore(location)
    defer { store.close() }
    let chat = try await ChatStorage(store: store)
    let (_, start) = try await chat.postedSince(nil)
    let room = "room-\(UUID().uuidString.prefix(6))"
    for (id, name, city, languages) in [
        ("ann", "Ann", "Rome", ["it", "en"]), ("bob", "Bob", "Milan", ["it"]), ("cy", "Cy", "Rome", ["en"])
    ] {
        try await chat.register(
            User(id: id, name: name, profile: .init(city: city, languages: languages), last_seen: 0))
    }
    let live = try chat.watch(room: room)
    var updates = live.makeAsyncIterator()
    try require(try await updates.next()?.isEmpty == true, "the live query starts empty")

    for (offset, (author, text)) in [("ann", "hello"), ("bob", "ciao"), ("ann", "how are you?")].enumerated() {
        try await chat.post(text, from: author, in: room, at: 1_437_108_600 + Double(offset))
    }
    let recent = try await chat.recent(in: room, limit: 2)
    try require(recent.map(\.text) == ["how are you?", "ciao"], "recent messages, newest first: \(recent.map(\.text))")
    try require(try await chat.users.get(id: "ann").last_seen == 1_437_108_602, "a post marks its author as seen")
    let romans = try await chat.users(in: "Rome", speaking: "en").map(\.id).sorted()
    try require(romans == ["ann", "cy"], "users by a nested field and an array inside it: \(romans)")

    var seen = try await updates.next() ?? []
    for _ in 0..<10 where seen.count < 3 { seen = try await updates.next() ?? [] }
    try require(seen.count == 3, "the live query saw the three messages: \(seen.count)")
    let (posted, _) = try await chat.postedSince(start)
    try require(posted.count == 3, "the change feed lists the three posts: \(posted)")
    print("ChatExample: \(type(of: store)) at \(store.location): 3 users, 3 messages, live query and feed agree")
}

do {
    guard CommandLine.arguments.count == 2 else {
        print("usage: ChatExample DIRECTORY|postgresql://URL")
        exit(2)
    }
    try await run(CommandLine.arguments[1])
} catch {
    print("ChatExample failed: \(error)")
    exit(1)
}
