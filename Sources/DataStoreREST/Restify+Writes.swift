// Restify's partial update and delete by query: one request each.
public import DataStoreCore
import Foundation

extension Restify {
    /// Sends `PATCH base/{id}` with `{"set": {…}, "unset": […]}` and returns the object answered:
    /// the server applies the change to what it stores, so concurrent updates of different
    /// fields both land (as far as the server makes each request atomic).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id for a 404, or for a null or empty
    ///   id (nothing is sent then); `.invalidValue` for a change to the id field, an empty name or
    ///   a field both set and unset (nothing is sent); `.httpStatus`, `.badResponse`, `.network`.
    public func update(id: Value, set: [String: Value], unset: [String]) async throws -> Object {
        let changes = FieldChanges(set: set, unset: unset)
        try changes.validate(idField: mapping.idField, target: "\(base)/\(id)")
        var body = Document()
        body["set"] = .object(Document(changes.assigned))
        body["unset"] = .array(changes.removed.map(Value.string))
        let request = NetworkRequest(
            method: .patch, url: try url(id: id, lookup: true), headers: Self.sendJSON,
            body: try JSONWire.encode(body))
        let response = try await exchange(request, notFound: id)
        return try decodeObject(from: response, of: request)
    }

    /// Sends `DELETE base?params` and returns the count the server answered (`{"removed": n}`).
    ///
    /// Parameters are checked before anything is sent.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key; `.badResponse` for an
    ///   answer without a non-negative integer `removed`; `.httpStatus`, `.network`.
    public func remove(params: [String: Value]?) async throws -> Int {
        let items = try RestQuery.items(params: params ?? [:], options: [:])
        let request = NetworkRequest(method: .delete, url: try url(query: items), headers: Self.acceptJSON)
        let response = try await exchange(request)
        let answer = try JSONWire.decode(response.body, expected: .object, exchange: "\(request)")[0]
        guard let removed = answer["removed"]?.intValue, removed >= 0, let count = Int(exactly: removed) else {
            throw DataStoreError(
                .badResponse, "\(request) answered \(answer), not {\"removed\": a non-negative integer}")
        }
        return count
    }
}
