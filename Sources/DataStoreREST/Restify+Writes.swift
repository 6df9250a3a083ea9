// Restify's partial update and delete by query: one request each.
public import DataStoreCore
import Foundation

extension Restify {
    /// Sends `PATCH base/{id}` with `{"set": {…}, "unset": […], "increment": {…}, "append": {…},
    /// "remove": {…}}` (each key a field path, as ``/DataStoreCore/FieldUpdate`` reads it; empty parts left
    /// out) and returns the object answered: the server applies the change to what it stores, so
    /// concurrent updates of different fields both land (as far as the server makes each request
    /// atomic).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id for a 404, or for a null or empty
    ///   id (nothing is sent then); `.invalidValue` naming the field for an update
    ///   ``/DataStoreCore/FieldUpdate`` refuses (nothing is sent), or that the server refuses with a 422 (a
    ///   path through a value that is not an object, an increment of what is not a number);
    ///   `.httpStatus`, `.badResponse`, `.network`.
    public func update(id: Value, _ changes: FieldUpdate) async throws -> Object {
        try changes.validate(idField: mapping.idField, target: "\(base)/\(id)")
        var body = Document()
        body["set"] = .object(Document(changes.assigned))
        body["unset"] = .array(changes.removed.map(Value.string))
        var increments = Document(), appends = Document(), removals = Document()
        for (field, change) in changes.changes {
            switch change {
            case .increment(let amount): increments[field] = amount
            case .append(let values): appends[field] = .array(values)
            case .remove(let values): removals[field] = .array(values)
            case .set, .unset: break
            }
        }
        if !increments.isEmpty { body["increment"] = .object(increments) }
        if !appends.isEmpty { body["append"] = .object(appends) }
        if !removals.isEmpty { body["remove"] = .object(removals) }
        let request = NetworkRequest(
            method: .patch, url: try url(id: id, lookup: true), headers: Self.sendJSON,
            body: try JSONWire.encode(body))
        let response = try await exchange(request, notFound: id, refusedValue: true)
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
