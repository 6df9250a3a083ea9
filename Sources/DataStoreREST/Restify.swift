// Restify: the model protocol over a REST API (see docs/rest.md).
public import DataStoreCore
public import Foundation

/// A model whose objects live behind a REST API: the DataStoreKit pod's `Restify<T>`, making the
/// same ``/DataStoreCore/ModelProtocol`` calls as the local store over HTTP, through a ``NetworkClient`` you can
/// replace.
///
/// ```swift
/// let messages = Restify<Message>(path: "https://api.example.com/messages",
///                                 networkClient: URLSessionClient(defaultHeaders: ["Authorization": "Bearer …"]))
/// let thread = try await messages.query(params: ["from_user_key": "1234567890", "to_user_key": "0987654321"],
///                                       options: nil)
/// ```
///
/// The mapping, with `base` the `path` given at creation:
///
/// | call | request | answer expected |
/// |---|---|---|
/// | `query(params:options:)` | `GET base?params` | JSON array of objects |
/// | `all()` | `GET base/all` | JSON array of objects |
/// | `get(id:)` | `GET base/{id}` | JSON object |
/// | `put(id:object:)` | `PUT base/{id}`, the object as JSON | JSON object (or an empty body) |
/// | `add(object:)` | `POST base`, the object as JSON | JSON object (or an empty body) |
/// | `remove(id:)` | `DELETE base/{id}` | JSON object: the removed one |
/// | `update(id:set:unset:)` | `PATCH base/{id}`, `{"set": {…}, "unset": […]}` | JSON object: the updated one |
/// | `remove(params:)` | `DELETE base?params` | `{"removed": n}` |
///
/// Query keys (`created_ts >=`) and values are percent-encoded verbatim; options travel as
/// `_limit`, `_offset` and `_sort` (JSON). Statuses map to ``/DataStoreCore/DataStoreError`` codes: a 404 on
/// `get`/`remove` is `.notFound`, a 409 on `add` is `.duplicateID`, any other status outside 2xx
/// is `.httpStatus`; a body of the wrong shape is `.badResponse`; no answer at all is `.network`.
/// docs/rest.md has the details.
///
/// A `Restify` holds no state besides its configuration, so it is cheap to copy and share.
public struct Restify<Object>: MappedModel {
    /// The collection's URL as given, such as `"https://api.example.com/messages"`.
    public let path: String
    /// The client that sends every request.
    public let networkClient: any NetworkClient
    /// How objects become documents and back, and which field is the id.
    public let mapping: ObjectMapping<Object>
    /// `path` without trailing slashes: the prefix of every request URL.
    let base: String

    /// Creates a model for the collection at `path` with an explicit mapping.
    ///
    /// - Parameters:
    ///   - path: The collection's absolute URL, such as `"https://api.example.com/messages"`.
    ///     A string that is not a URL makes every call throw ``/DataStoreCore/DataStoreError`` `.network`.
    ///   - networkClient: The client that sends every request; a ``URLSessionClient`` by default.
    ///   - mapping: How objects become documents and back.
    public init(path: String, networkClient: any NetworkClient = URLSessionClient(), mapping: ObjectMapping<Object>) {
        self.path = path
        self.networkClient = networkClient
        self.mapping = mapping
        var base = path
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    /// Creates a model for the collection at `url` with an explicit mapping.
    ///
    /// - Parameters:
    ///   - url: The collection's absolute URL.
    ///   - networkClient: The client that sends every request; a ``URLSessionClient`` by default.
    ///   - mapping: How objects become documents and back.
    public init(url: URL, networkClient: any NetworkClient = URLSessionClient(), mapping: ObjectMapping<Object>) {
        self.init(path: url.absoluteString, networkClient: networkClient, mapping: mapping)
    }

    // MARK: ModelProtocol

    /// Sends `GET base?params` (plus `_limit`, `_offset`, `_sort` from `options`) and returns the
    /// objects of the JSON array answered.
    ///
    /// Parameters and options are checked before anything is sent.
    ///
    /// - Parameters:
    ///   - params: Conditions, such as `["from_user_key": "12", "created_ts >=": 1437108600]`.
    ///   - options: `limit`, `offset` and `sort`.
    /// - Returns: The objects, in the server's order.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` or `.invalidOption` naming the bad key;
    ///   `.httpStatus`, `.badResponse`, `.network` (see the type's summary).
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        let items = try RestQuery.items(params: params ?? [:], options: options ?? [:])
        let request = NetworkRequest(method: .get, url: try url(query: items), headers: Self.acceptJSON)
        let response = try await exchange(request)
        return try decodeObjects(from: response, of: request)
    }

    /// Sends `GET base/{id}` and returns the object answered.
    ///
    /// - Parameter id: The id, a string or an integer, sent percent-encoded as one path segment.
    /// - Returns: The object.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id for a 404, or when `id` is null or
    ///   empty (nothing is sent then); `.invalidID` for an id of another type;
    ///   `.httpStatus`, `.badResponse`, `.network` (see the type's summary).
    public func get(id: Value) async throws -> Object {
        let request = NetworkRequest(method: .get, url: try url(id: id, lookup: true), headers: Self.acceptJSON)
        let response = try await exchange(request, notFound: id)
        return try decodeObject(from: response, of: request)
    }

    /// Sends `PUT base/{id}` with `object` as JSON (its id field set to `id`) and returns the
    /// object answered, or the object as sent when the answer has no body.
    ///
    /// - Parameters:
    ///   - id: The id, a string or an integer.
    ///   - object: The object to store.
    /// - Returns: The object as stored.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidID` for a null, empty or non-scalar id; `.codec`
    ///   when the object cannot be converted; `.invalidValue` for a NaN or infinite number;
    ///   `.httpStatus`, `.badResponse`, `.network` (see the type's summary).
    public func put(id: Value, object: Object) async throws -> Object {
        var document = try encode(object)
        document[mapping.idField] = id
        let request = NetworkRequest(
            method: .put, url: try url(id: id, lookup: false),
            headers: Self.sendJSON, body: try JSONWire.encode(document))
        let response = try await exchange(request)
        return try decodeObject(from: response, of: request, orSent: document)
    }

    /// Sends `POST base` with `object` as JSON and returns the object answered (with the id the
    /// server generated when `object` had none), or the object as sent when the answer has no body.
    ///
    /// An id field that is null or the empty string (the seed's `toDictionary()` writes
    /// `id ?? ""`) counts as no id: it is left out, so the server generates one.
    ///
    /// - Parameter object: The object to insert.
    /// - Returns: The object as stored.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID` naming the id for a 409; `.codec`, `.invalidValue`
    ///   as for ``put(id:object:)``; `.httpStatus`, `.badResponse`, `.network`.
    public func add(object: Object) async throws -> Object {
        var document = try encode(object)
        let id = document[mapping.idField]
        if id == nil || id == .null || id == .string("") {
            document[mapping.idField] = nil
        }
        let request = NetworkRequest(
            method: .post, url: try url(), headers: Self.sendJSON,
            body: try JSONWire.encode(document))
        let response = try await exchange(request, duplicate: document[mapping.idField])
        return try decodeObject(from: response, of: request, orSent: document[mapping.idField] == nil ? nil : document)
    }

    /// Sends `DELETE base/{id}` and returns the removed object the server answered.
    ///
    /// - Parameter id: The id, a string or an integer.
    /// - Returns: The removed object.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id for a 404, or when `id` is null or
    ///   empty (nothing is sent then); `.invalidID` for an id of another type;
    ///   `.httpStatus`, `.badResponse` (also for an empty answer), `.network`.
    public func remove(id: Value) async throws -> Object {
        let request = NetworkRequest(method: .delete, url: try url(id: id, lookup: true), headers: Self.acceptJSON)
        let response = try await exchange(request, notFound: id)
        return try decodeObject(from: response, of: request)
    }

    /// Sends `GET base/all` and returns the objects of the JSON array answered.
    ///
    /// - Returns: Every object, in the server's order.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.httpStatus`, `.badResponse`, `.network`.
    public func all() async throws -> [Object] {
        let request = NetworkRequest(method: .get, url: try url(segment: "all"), headers: Self.acceptJSON)
        let response = try await exchange(request)
        return try decodeObjects(from: response, of: request)
    }
}

extension Restify where Object: ObjectCoder & SendableMetatype {
    /// Creates a model for the collection at `path` whose objects are an ``/DataStoreCore/ObjectCoder`` class:
    /// the seed's `Restify<Message>(path: messageURL, networkClient: MyNetworkClient())`.
    ///
    /// - Parameters:
    ///   - path: The collection's absolute URL, such as `"https://api.example.com/messages"`.
    ///   - networkClient: The client that sends every request; a ``URLSessionClient`` by default.
    public init(path: String, networkClient: any NetworkClient = URLSessionClient()) {
        self.init(path: path, networkClient: networkClient, mapping: .objectCoder)
    }
}

extension Restify where Object: Codable & SendableMetatype {
    /// Creates a model for the collection at `path` whose objects are a `Codable` type, converted
    /// with ``/DataStoreCore/DocumentEncoder`` and ``/DataStoreCore/DocumentDecoder``.
    ///
    /// - Parameters:
    ///   - path: The collection's absolute URL, such as `"https://api.example.com/notes"`.
    ///   - idField: The coding key of the id property; `"id"` by default.
    ///   - networkClient: The client that sends every request; a ``URLSessionClient`` by default.
    public init(path: String, idField: String = "id", networkClient: any NetworkClient = URLSessionClient()) {
        self.init(path: path, networkClient: networkClient, mapping: .codable(idField: idField))
    }
}
