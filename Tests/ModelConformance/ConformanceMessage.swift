// The one object type every ModelProtocol implementation is checked with.
public import DataStoreCore
public import Foundation

/// The seed's `Message`, as an ``ObjectCoder`` class, plus a binary ``attachment`` and a nested
/// dictionary ``meta`` so every seed scenario can run: the object type of the conformance battery.
///
/// Unlike the seed's class its properties are constants (so it is `Sendable`), and
/// ``toDictionary()`` leaves out nil properties instead of writing `""`. ``init(dictionary:)`` is
/// strict about types, as the seed's is: `created_ts` must come back a `Double`, `attachment`
/// `Data` — so a model that loses a type fails the battery.
public final class ConformanceMessage: ObjectCoder, Sendable, Equatable, CustomStringConvertible {
    /// The identifier; `nil` asks `add` to generate one.
    public let id: String?
    /// The sender.
    public let from_user_key: String?
    /// The recipient.
    public let to_user_key: String?
    /// The text.
    public let message: String?
    /// A kind, such as `"text"`.
    public let type: String?
    /// The creation time in seconds since 1970, a `Double` as in the seed.
    public let created_ts: Double?
    /// Binary data, stored as bytes.
    public let attachment: Data?
    /// A nested dictionary.
    public let meta: Document?

    /// Creates a message.
    public init(
        id: String? = nil, from: String? = nil, to: String? = nil, message: String? = nil,
        type: String? = nil, createdTS: Double? = nil, attachment: Data? = nil, meta: Document? = nil
    ) {
        self.id = id
        self.from_user_key = from
        self.to_user_key = to
        self.message = message
        self.type = type
        self.created_ts = createdTS
        self.attachment = attachment
        self.meta = meta
    }

    /// Creates a message from a dictionary, taking each field only when it has the expected type.
    public required init(dictionary withDictionary: [String: Any]) {
        id = withDictionary["id"] as? String
        from_user_key = withDictionary["from_user_key"] as? String
        to_user_key = withDictionary["to_user_key"] as? String
        message = withDictionary["message"] as? String
        type = withDictionary["type"] as? String
        created_ts = withDictionary["created_ts"] as? Double
        attachment = withDictionary["attachment"] as? Data
        meta = (withDictionary["meta"] as? [String: Any]).flatMap { try? Document(dictionary: $0) }
    }

    /// The non-nil properties by field name; `meta` as a nested `[String: Any]`.
    public func toDictionary() -> [String: Any] {
        var dictionary: [String: Any] = [:]
        if let id { dictionary["id"] = id }
        if let from_user_key { dictionary["from_user_key"] = from_user_key }
        if let to_user_key { dictionary["to_user_key"] = to_user_key }
        if let message { dictionary["message"] = message }
        if let type { dictionary["type"] = type }
        if let created_ts { dictionary["created_ts"] = created_ts }
        if let attachment { dictionary["attachment"] = attachment }
        if let meta { dictionary["meta"] = meta.toDictionary() }
        return dictionary
    }

    /// `"id"`.
    public static func identifierKey() -> String { "id" }

    /// A copy with `id` replaced.
    public func with(id: String?) -> ConformanceMessage {
        ConformanceMessage(
            id: id, from: from_user_key, to: to_user_key, message: message, type: type,
            createdTS: created_ts, attachment: attachment, meta: meta)
    }

    /// A copy with `message` replaced.
    public func with(message: String?) -> ConformanceMessage {
        ConformanceMessage(
            id: id, from: from_user_key, to: to_user_key, message: message, type: type,
            createdTS: created_ts, attachment: attachment, meta: meta)
    }

    /// Whether every property is equal (`created_ts` by `==`, `meta` by ``Document`` equality).
    public static func == (a: ConformanceMessage, b: ConformanceMessage) -> Bool {
        a.id == b.id && a.from_user_key == b.from_user_key && a.to_user_key == b.to_user_key
            && a.message == b.message && a.type == b.type && a.created_ts == b.created_ts
            && a.attachment == b.attachment && a.meta == b.meta
    }

    /// The dictionary form, for failure messages.
    public var description: String {
        var fields: [String] = []
        if let id { fields.append("id: \(id)") }
        if let from_user_key { fields.append("from: \(from_user_key)") }
        if let to_user_key { fields.append("to: \(to_user_key)") }
        if let message { fields.append("message: \(message)") }
        if let type { fields.append("type: \(type)") }
        if let created_ts { fields.append("created_ts: \(created_ts)") }
        if let attachment { fields.append("attachment: \(attachment.count) bytes") }
        if let meta { fields.append("meta: \(meta)") }
        return "Message(" + fields.joined(separator: ", ") + ")"
    }
}
