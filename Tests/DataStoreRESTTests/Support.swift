// Shared test helpers: the mock client and the conformance type's alias.
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

/// Runs `body` and returns the ``DataStoreError`` it throws, or `nil` (recording nothing).
func dataStoreError<T>(_ body: () async throws -> T) async -> DataStoreError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? DataStoreError
    }
}

/// The `DataStoreError` that `body` throws about the server's answer. `URLSessionClient` sends a
/// `GET`, `PUT` or `DELETE` again itself when its connection is lost, never a `POST`; a test of how
/// an answer is read has nothing to read then, so this sends such a call once more (a loaded
/// machine can reset a connection to the test server).
func answerError<T>(_ body: () async throws -> T) async -> DataStoreError? {
    let first = await dataStoreError(body)
    guard let first, (first.underlying as? URLError)?.code == .networkConnectionLost else { return first }
    return await dataStoreError(body)
}
