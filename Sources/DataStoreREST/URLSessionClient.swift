// The default network client: Foundation's URLSession (FoundationNetworking on Linux).
#if canImport(FoundationNetworking)
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// The default ``NetworkClient``: sends requests with a `URLSession` (from FoundationNetworking on
/// Linux, backed by libcurl), with a timeout and default headers.
///
/// ```swift
/// let client = URLSessionClient(timeout: .seconds(10),
///                               defaultHeaders: ["Authorization": "Bearer \(token)"])
/// let messages = Restify<Message>(path: "https://api.example.com/messages", networkClient: client)
/// ```
///
/// Every answer is returned, whatever its status. A request that gets no answer throws the
/// session's `URLError`: `.cannotConnectToHost` for a refused connection, `.timedOut` when the
/// server stays silent for ``timeout``, `.networkConnectionLost` when the connection breaks. A
/// `GET`, `PUT` or `DELETE` whose connection breaks is sent once more first, as browsers and
/// HTTP libraries do: sending one of them twice has the effect of sending it once. A `POST` or
/// `PATCH` is never sent again, since the server may have acted on it.
public final class URLSessionClient: NetworkClient {
    /// How long a request may wait for the server: for the connection, and then between any two
    /// pieces of the answer.
    public let timeout: Duration
    /// Headers sent with every request that does not carry its own of the same name (matched
    /// case-insensitively): credentials belong here, never in a body.
    public let defaultHeaders: [String: String]
    private let session: URLSession

    /// Creates a client with its own ephemeral session (no cookies, no cache, no stored
    /// credentials).
    ///
    /// - Parameters:
    ///   - timeout: How long a request may wait for the server before it fails with
    ///     `URLError.timedOut`; 60 seconds by default.
    ///   - defaultHeaders: Headers added to every request, such as `Authorization`.
    public init(timeout: Duration = .seconds(60), defaultHeaders: [String: String] = [:]) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        self.timeout = timeout
        self.defaultHeaders = defaultHeaders
        self.session = URLSession(configuration: configuration)
    }

    /// Creates a client on a session made from `configuration`; its `timeoutIntervalForRequest`
    /// becomes ``timeout``.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration (proxies, TLS, cache, …).
    ///   - defaultHeaders: Headers added to every request, such as `Authorization`.
    public init(configuration: URLSessionConfiguration, defaultHeaders: [String: String] = [:]) {
        self.timeout = .milliseconds(Int64((configuration.timeoutIntervalForRequest * 1000).rounded()))
        self.defaultHeaders = defaultHeaders
        self.session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` with the session, adding ``defaultHeaders``; a `GET`, `PUT` or `DELETE`
    /// whose connection breaks is sent once more.
    ///
    /// - Parameter request: The method, URL, headers and body to send.
    /// - Returns: The server's answer, whatever its status.
    /// - Throws: The session's `URLError` when no answer arrived (`.cannotConnectToHost`,
    ///   `.timedOut`, `.networkConnectionLost`, …); `URLError(.badServerResponse)` when the
    ///   answer is not HTTP.
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: timeout.seconds)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in mergingHeaders(defaultHeaders, into: request.headers) {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError where error.code == .networkConnectionLost && Self.resendable(request.method) {
            (data, response) = try await session.data(for: urlRequest)
        }
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return NetworkResponse(status: http.statusCode, headers: headers, body: data)
    }
}

extension URLSessionClient {
    /// Whether a request with `method` may be sent again after its connection broke: sending it
    /// twice has the effect of sending it once (RFC 9110, 9.2.2).
    static func resendable(_ method: HTTPMethod) -> Bool {
        method == .get || method == .put || method == .delete || method.rawValue == "HEAD"
            || method.rawValue == "OPTIONS"
    }
}

extension Duration {
    /// The duration in seconds, as `URLSession` wants it.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
