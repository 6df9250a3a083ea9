/// A class that converts itself to and from a dictionary: the DataStoreKit pod's model protocol,
/// kept exactly as it was so existing model classes compile unchanged.
///
/// `[String: Any]` stops at this edge: the store converts the dictionary once, with
/// ``Document/init(dictionary:)``, and works with ``Document`` and ``Value`` from there on.
///
/// ```swift
/// final class Message: ObjectCoder {
///     var id: String?
///     required init(dictionary withDictionary: [String: Any]) { id = withDictionary["id"] as? String }
///     func toDictionary() -> [String: Any] { ["id": id ?? ""] }
///     static func identifierKey() -> String { "id" }
/// }
/// ```
public protocol ObjectCoder: AnyObject {
    /// Creates an object from a dictionary, as produced by ``Document/toDictionary()``.
    init(dictionary withDictionary: [String: Any])

    /// Returns the object's fields as a dictionary of values ``Document/init(dictionary:)`` accepts.
    func toDictionary() -> [String: Any]

    /// The name of the field that uniquely identifies an object (for example `"id"`).
    static func identifierKey() -> String
}
