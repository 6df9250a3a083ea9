// Shared test helpers: the mock client and the conformance type's alias.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Synchronization

/// A ``NetworkClient`` that answers with a closure and records every request: the seed's mock.
final class MockClient: NetworkClient {
    private let answer: @Sendable (NetworkRequest) async throws -> NetworkResponse
    private let log = Mutex<[NetworkRequest]>([])

    init(_ answer: @escaping @Sendable (NetworkRequest) async throws -> NetworkResponse) {
        self.answer = answer
    }

    /// Always answers `status` with `body`.
    convenience init(status: Int, json body: String) {
        self.init { _ in
            NetworkResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        }
    }

    /// The requests sent so far.
    var requests: [NetworkRequest] { log.withLock { $0 } }

    func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        log.withLock { $0.append(request) }
        return try await answer(request)
    }
}

/// The seed README's Message class, as written there (with its `tyoe` typo fixed): it must work
/// with `Restify<Message>(path:networkClient:)` unchanged.
final class Message: ObjectCoder {
    var id: String?
    var from_user_key: String?
    var to_user_key: String?
    var message: String?
    var created_ts: Double? // created timestamp in Double
    var type: String?

    static func identifierKey() -> String {
        return "id"
    }

    required init(dictionary withDictionary: [String: Any]) {
        self.id = withDictionary["id"] as? String
        self.from_user_key = withDictionary["from_user_key"] as? String
        self.to_user_key = withDictionary["to_user_key"] as? String
        self.message = withDictionary["message"] as? String
        self.type = withDictionary["type"] as? String
        let created_ts_str = withDictionary["created_ts"] as? Double
        self.created_ts = created_ts_str
    }

    func toDictionary() -> [String: Any] {
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

/// Runs `body` and returns the ``DataStoreError`` it throws, or `nil` (recording nothing).
func dataStoreError<T>(_ body: () async throws -> T) async -> DataStoreError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? DataStoreError
    }
}
