// The details of an answer outside 2xx, kept as the underlying error of a DataStoreError.
public import Foundation

/// A server's answer with a status outside 2xx: the ``/DataStoreCore/DataStoreError/underlying`` error of the
/// `.httpStatus`, `.notFound` and `.duplicateID` errors ``Restify`` throws for it, so a caller can
/// read the status.
///
/// ```swift
/// catch let error as DataStoreError where error.code == .httpStatus {
///     let status = (error.underlying as? HTTPStatusError)?.status
/// }
/// ```
public struct HTTPStatusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status, such as 500.
    public let status: Int
    /// The request's method.
    public let method: HTTPMethod
    /// The request's URL.
    public let url: URL
    /// At most 512 bytes of the answer's body, as UTF-8 text (see ``bodyExcerptLimit``).
    public let bodyExcerpt: String

    /// The most bytes of a body an error message shows.
    public static var bodyExcerptLimit: Int { BodyExcerpt.limit }

    /// Creates the error for `response`, an answer to `request`.
    ///
    /// - Parameters:
    ///   - request: The request that was sent.
    ///   - response: The server's answer.
    public init(request: NetworkRequest, response: NetworkResponse) {
        status = response.status
        method = request.method
        url = request.url
        bodyExcerpt = BodyExcerpt(response.body).description
    }

    /// "GET http://host/messages/42 answered HTTP 500 Internal Server Error: <body excerpt>",
    /// the URL without any user name or password.
    public var description: String {
        let reason = HTTPURLResponseReason.phrase(for: status)
        return
            "\(method) \(url.redactedDescription) answered HTTP \(status)\(reason.isEmpty ? "" : " " + reason): \(bodyExcerpt)"
    }
}

/// Reason phrases for the statuses a REST client meets most.
enum HTTPURLResponseReason {
    static func phrase(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
