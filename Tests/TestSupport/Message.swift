public import DataStoreCore
import Foundation

/// The seed README's `Message`, as written there but for its `tyoe` typo and the `public` a shared
/// module needs: the tests check that it works unchanged with every model.
public final class Message: ObjectCoder {
    public var id: String?
    public var from_user_key: String?
    public var to_user_key: String?
    public var message: String?
    public var created_ts: Double? // created timestamp in Double
    public var type: String?

    public static func identifierKey() -> String {
        return "id"
    }

    public required init(dictionary withDictionary: [String: Any]) {
        self.id = withDictionary["id"] as? String
        self.from_user_key = withDictionary["from_user_key"] as? String
        self.to_user_key = withDictionary["to_user_key"] as? String
        self.message = withDictionary["message"] as? String
        self.type = withDictionary["type"] as? String
        let created_ts_str = withDictionary["created_ts"] as? Double
        self.created_ts = created_ts_str
    }

    public func toDictionary() -> [String: Any] {
        let dic: [String: Any] = [
            "id": self.id ?? "",
            "from_user_key": self.from_user_key ?? "",
            "to_user_key": self.to_user_key ?? "",
            "message": self.message ?? "",
            "type": self.type ?? "",
            "created_ts": self.created_ts ?? NSDate().timeIntervalSince1970
        ]
        return dic
    }
}
