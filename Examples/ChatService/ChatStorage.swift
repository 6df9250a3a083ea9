import DataStoreKit
import Foundation

/// A user of the chat service: a nested profile, and when they were last seen.
struct User: Codable, Sendable, Equatable {
    struct Profile: Codable, Sendable, Equatable {
        var city: String
        var languages: [String]
    }
    var id: String
    var name: String
    var profile: Profile
    var last_seen: Double
}

/// A message posted in a room.
struct Message: Codable, Sendable, Equatable {
    var id: String
    var room: String
    var from: String
    var text: String
    var created_ts: Double
}

/// The storage layer of a chat service, written once against the contract every store keeps: the
/// same code runs on a directory's LMDB store and on a PostgreSQL server.
struct ChatStorage: Sendable {
    let store: any DocumentStore
    let users: any DocumentCollection<User>
    let messages: any DocumentCollection<Message>

    /// Declares the collections and their indexes on `store`.
    init(store: any DocumentStore) async throws {
        self.store = store
        users = try await store.collection(
            User.self, idField: "id",
            indexes: [
                IndexDefinition("city", fields: ["profile.city"]),
                IndexDefinition("languages", fields: ["profile.languages"], multiValue: true)
            ])
        messages = try await store.collection(
            Message.self, idField: "id",
            indexes: [IndexDefinition("room_time", fields: ["room", .descending("created_ts")])])
    }

    /// Registers a user.
    func register(_ user: User) async throws {
        _ = try await users.put(id: .string(user.id), object: user)
    }

    /// Posts a message and marks its author as seen, in one unit of work: both land, or neither.
    @discardableResult
    func post(_ text: String, from user: String, in room: String, at time: Double) async throws -> Message {
        let unit = store.newContext(policy: .detect)
        let message = try unit.add(
            Message(id: "\(room)-\(Int(time * 1000))-\(user)", room: room, from: user, text: text, created_ts: time),
            to: messages)
        _ = try unit.update(id: .string(user), set: ["last_seen": .double(time)], unset: [], in: users)
        try await unit.save()
        return message
    }

    /// The latest messages of a room, newest first.
    func recent(in room: String, limit: Int) async throws -> [Message] {
        try await messages.query(
            params: ["room": .string(room)],
            options: ["sort": ["created_ts": ["ascending": false]], "limit": .int(Int64(limit))])
    }

    /// The users living in `city` (a nested field) who speak `language` (an array inside it).
    func users(in city: String, speaking language: String) async throws -> [User] {
        try await users.query(
            params: ["profile.city": .string(city), "profile.languages": .string(language)], options: nil)
    }

    /// The live messages of a room: the current ones, then again after each change.
    func watch(room: String) throws -> QueryObservation<Message> {
        try messages.observe(params: ["room": .string(room)], options: nil)
    }

    /// The ids of the messages posted after `position`, from the durable change feed, and the
    /// position to resume from.
    func postedSince(_ position: CommitID?) async throws -> (ids: [Value], position: CommitID?) {
        var ids: [Value] = []
        var last = position
        for try await event in try store.changes(after: position).recordedSoFar {
            for change in event.changes where change.collection == "Message" { ids += change.inserted }
            last = event.commit
        }
        return (ids, last)
    }
}
