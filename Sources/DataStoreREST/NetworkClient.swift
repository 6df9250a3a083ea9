// The one thing Restify needs from the network: send a request, get the answer.
public import Foundation

/// Sends HTTP requests for ``Restify``: the seed's `NetworkInterface` (GET, POST, PUT, DELETE,
/// set headers), made `async throws` and `Sendable`, so any networking library can be plugged in.
///
/// Implement one method, ``send(_:)``; the conveniences ``get(_:headers:)``,
/// ``post(_:body:headers:)``, ``put(_:body:headers:)`` and ``delete(_:headers:)`` build on it,
/// and ``withHeaders(_:)`` adds headers (credentials) to every request.
///
/// ```swift
/// struct MyNetworkClient: NetworkClient {
///     func send(_ request: NetworkRequest) async throws -> NetworkResponse {
///         // call your HTTP library; return whatever status the server answered
///     }
/// }
/// let model = Restify<Message>(path: "https://api.example.com/messages", networkClient: MyNetworkClient())
/// ```
///
/// The rules a client follows:
/// - return every answer the server gives, whatever its status (``Restify`` maps statuses to
///   ``/DataStoreCore/DataStoreError`` codes);
/// - throw only when there is no answer: a refused connection, a timeout, a lost connection.
///   Throw `URLError` where one fits (Restify names its code in a `.network` error), or any
///   other error (Restify wraps it in a `.network` error), or a ``/DataStoreCore/DataStoreError`` (passed on as is).
public protocol NetworkClient: Sendable {
    /// Sends `request` and returns the server's answer, whatever its status.
    ///
    /// - Parameter request: The method, URL, headers and body to send.
    /// - Returns: The status, headers and body the server answered.
    /// - Throws: When no answer arrived (connection refused, timeout, …).
    func send(_ request: NetworkRequest) async throws -> NetworkResponse
}

extension NetworkClient {
    /// Sends a `GET` for `url`.
    ///
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - headers: Header fields to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: See ``send(_:)``.
    public func get(_ url: URL, headers: [String: String] = [:]) async throws -> NetworkResponse {
        try await send(NetworkRequest(method: .get, url: url, headers: headers))
    }

    /// Sends a `POST` of `body` to `url`.
    ///
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - body: The body to send.
    ///   - headers: Header fields to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: See ``send(_:)``.
    public func post(_ url: URL, body: Data?, headers: [String: String] = [:]) async throws -> NetworkResponse {
        try await send(NetworkRequest(method: .post, url: url, headers: headers, body: body))
    }

    /// Sends a `PUT` of `body` to `url`.
    ///
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - body: The body to send.
    ///   - headers: Header fields to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: See ``send(_:)``.
    public func put(_ url: URL, body: Data?, headers: [String: String] = [:]) async throws -> NetworkResponse {
        try await send(NetworkRequest(method: .put, url: url, headers: headers, body: body))
    }

    /// Sends a `DELETE` for `url`.
    ///
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - headers: Header fields to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: See ``send(_:)``.
    public func delete(_ url: URL, headers: [String: String] = [:]) async throws -> NetworkResponse {
        try await send(NetworkRequest(method: .delete, url: url, headers: headers))
    }

    /// Returns a client that adds `headers` to every request this one sends: the place for
    /// credentials (`Authorization`, API keys), which travel in headers and never in a body.
    ///
    /// A header the request already carries (matched case-insensitively) is kept.
    ///
    /// - Parameter headers: Header fields to add to every request.
    /// - Returns: A client sending through this one.
    public func withHeaders(_ headers: [String: String]) -> HeaderInjectingClient<Self> {
        HeaderInjectingClient(base: self, headers: headers)
    }
}

/// A client that adds fixed headers (credentials, an API version) to every request and then sends
/// it through another client. Made by ``NetworkClient/withHeaders(_:)``.
public struct HeaderInjectingClient<Base: NetworkClient>: NetworkClient {
    /// The client that sends the requests.
    public let base: Base
    /// The headers added to every request that does not already carry them.
    public let headers: [String: String]

    /// Creates a client that adds `headers` to every request sent through `base`.
    ///
    /// - Parameters:
    ///   - base: The client that sends the requests.
    ///   - headers: Header fields to add; a request's own header of the same name (matched
    ///     case-insensitively) wins.
    public init(base: Base, headers: [String: String]) {
        self.base = base
        self.headers = headers
    }

    /// Adds ``headers`` to `request` and sends it through ``base``.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: Whatever ``base`` throws.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var request = request
        request.headers = mergingHeaders(headers, into: request.headers)
        return try await base.send(request)
    }
}

/// Returns `own` plus every entry of `defaults` whose name (case-insensitively) `own` lacks.
func mergingHeaders(_ defaults: [String: String], into own: [String: String]) -> [String: String] {
    var merged = own
    let present = Set(own.keys.map { $0.lowercased() })
    for (name, value) in defaults where !present.contains(name.lowercased()) {
        merged[name] = value
    }
    return merged
}
