// The plain values a network client exchanges: a request, its method, and the answer.
public import Foundation

/// An HTTP method, by name: `GET`, `POST`, `PUT`, `DELETE` or any other the server knows.
///
/// A struct around the method's name rather than an enum, so a client can send methods this
/// module does not list.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's name as it appears on the request line, such as `"GET"`.
    public let rawValue: String

    /// Creates a method from its name, as it appears on the request line.
    ///
    /// - Parameter rawValue: The method's name, such as `"PATCH"`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `GET`: fetch (`Restify` `query`, `all`, `get`).
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: create (`Restify` `add`).
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace or create (`Restify` `put`).
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `DELETE`: remove (`Restify` `remove`).
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `PATCH`: change some fields (`Restify` `update`).
    public static let patch = HTTPMethod(rawValue: "PATCH")

    /// The method's name.
    public var description: String { rawValue }
}

/// One HTTP request, as ``Restify`` hands it to a ``NetworkClient``.
public struct NetworkRequest: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The absolute URL, query string included.
    public var url: URL
    /// Header fields by name. Names are matched case-insensitively by HTTP; ``NetworkClient``
    /// conveniences and ``HeaderInjectingClient`` keep one spelling per name.
    public var headers: [String: String]
    /// The body, or `nil` for none.
    public var body: Data?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The absolute URL, query string included.
    ///   - headers: Header fields by name.
    ///   - body: The body, or `nil` for none.
    public init(method: HTTPMethod, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The header value for `name`, matched case-insensitively.
    ///
    /// - Complexity: O(*n*) in the number of headers.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The method and the URL (with any user name and password removed); never the headers,
    /// which may carry credentials.
    public var description: String { "\(method) \(url.redactedDescription)" }
}

/// The answer to a ``NetworkRequest``: any status, 2xx or not.
///
/// A client returns every answer the server gave, whatever its status, and throws only when there
/// is no answer (refused connection, timeout, …). ``Restify`` decides what a status means.
public struct NetworkResponse: Hashable, Sendable {
    /// The HTTP status code, such as 200 or 404.
    public var status: Int
    /// Header fields by name.
    public var headers: [String: String]
    /// The body; empty when the server sent none.
    public var body: Data

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: Header fields by name.
    ///   - body: The body; empty for none.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is in 200…299.
    public var isSuccess: Bool { (200...299).contains(status) }

    /// The header value for `name`, matched case-insensitively.
    ///
    /// - Complexity: O(*n*) in the number of headers.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

extension URL {
    /// The URL as text with any user name and password removed, for error messages and logs.
    var redactedDescription: String {
        guard user != nil || password != nil,
            var components = URLComponents(url: self, resolvingAgainstBaseURL: false)
        else { return absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? absoluteString
    }
}
