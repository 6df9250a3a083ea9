// Restify's plumbing: URLs, sending, statuses to errors, bodies to objects.
import DataStoreCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Restify {
    static var acceptJSON: [String: String] { ["Accept": "application/json"] }
    static var sendJSON: [String: String] {
        ["Accept": "application/json", "Content-Type": "application/json; charset=utf-8"]
    }

    // MARK: URLs

    /// `base`, `base/{segment}` or `base?query`.
    func url(segment: String? = nil, query: [(name: String, value: String)] = []) throws(DataStoreError) -> URL {
        var text = base
        if let segment { text += "/" + RestQuery.percentEncoded(segment) }
        if !query.isEmpty {
            text +=
                "?"
                + query.map { RestQuery.percentEncoded($0.name) + "=" + RestQuery.percentEncoded($0.value) }
                .joined(separator: "&")
        }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw DataStoreError(.network, "'\(path)' is not an absolute URL (request '\(text)')")
        }
        return url
    }

    /// `base/{id}`, with `id` as one percent-encoded path segment.
    ///
    /// - Parameter lookup: Whether the call looks an id up (`get`, `remove`): then a null or empty
    ///   id is simply not found, as in the seed, and nothing is sent.
    func url(id: Value, lookup: Bool) throws(DataStoreError) -> URL {
        switch id {
        case .string(let text) where !text.isEmpty:
            return try url(segment: text)
        case .int(let number):
            return try url(segment: String(number))
        case .double(let number) where Int64(exactly: number) != nil:
            return try url(segment: String(Int64(exactly: number)!))
        case .null, .string:
            if lookup {
                throw DataStoreError(.notFound, "no object with id \(id) in \(base): the id is missing")
            }
            throw DataStoreError(.invalidID, "id \(id) for \(base) is missing or empty")
        default:
            throw DataStoreError(.invalidID, "id \(id) for \(base) is a \(id.typeName); ids are strings or integers")
        }
    }

    // MARK: Sending

    /// Sends `request` and checks the status.
    ///
    /// - Parameters:
    ///   - notFound: The id looked up, when a 404 means "no such object".
    ///   - duplicate: The id inserted, when a 409 means "id already stored".
    ///   - refusedValue: Whether a 422 means "the change does not fit what is stored" (`.invalidValue`).
    func exchange(
        _ request: NetworkRequest, notFound: Value? = nil, duplicate: Value? = nil, refusedValue: Bool = false
    ) async throws
        -> NetworkResponse
    {
        let response: NetworkResponse
        do {
            response = try await networkClient.send(request)
        } catch let error as DataStoreError {
            throw error
        } catch let error as URLError {
            if error.code == .cancelled, Task.isCancelled { throw CancellationError() }
            throw DataStoreError(.network, "\(request) failed: \(Self.explain(error))", underlying: error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw DataStoreError(.network, "\(request) failed: \(error)", underlying: error)
        }
        guard !response.isSuccess else { return response }
        let failure = HTTPStatusError(request: request, response: response)
        if response.status == 404, let notFound {
            throw DataStoreError(
                .notFound, "no object with id \(notFound) in \(base) (\(failure))", underlying: failure)
        }
        if response.status == 409, let duplicate {
            throw DataStoreError(
                .duplicateID, "an object with id \(duplicate) is already in \(base) (\(failure))",
                underlying: failure)
        }
        if response.status == 422, refusedValue {
            throw DataStoreError(.invalidValue, "\(base) refused the change (\(failure))", underlying: failure)
        }
        throw DataStoreError(.httpStatus, failure.description, underlying: failure)
    }

    /// What went wrong, in words, for a `URLError`.
    static func explain(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "could not connect to the server (connection refused)"
        case .timedOut: "timed out waiting for the server"
        case .cannotFindHost, .dnsLookupFailed: "the server's host name was not found"
        case .networkConnectionLost: "the connection was lost before the answer was complete"
        case .notConnectedToInternet: "there is no network connection"
        case .badServerResponse: "the server's answer was not valid HTTP"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            "the TLS connection could not be established"
        case .cancelled: "the request was cancelled"
        default: "URLError code \(error.code.rawValue) (\(error.localizedDescription))"
        }
    }

    // MARK: Bodies

    /// Converts `object` to a document, wrapping errors as `.codec`.
    func encode(_ object: Object) throws(DataStoreError) -> Document {
        do {
            return try mapping.encode(object)
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw DataStoreError(
                .codec, "an object for \(base) cannot be converted to a document: \(error)",
                underlying: error)
        }
    }

    /// Converts a document a server answered to an object, wrapping errors as `.badResponse`.
    func decode(_ document: Document, of request: NetworkRequest) throws(DataStoreError) -> Object {
        do {
            return try mapping.decode(document)
        } catch {
            throw DataStoreError(
                .badResponse, "\(request) answered an object that cannot become \(Object.self): \(error)",
                underlying: error)
        }
    }

    /// The one object in the response's body; `sent` when the body is empty and `sent` is given.
    func decodeObject(from response: NetworkResponse, of request: NetworkRequest, orSent sent: Document? = nil)
        throws(DataStoreError) -> Object
    {
        if response.body.isEmpty || response.status == 204, let sent {
            return try decode(sent, of: request)
        }
        let documents = try JSONWire.decode(response.body, expected: .object, exchange: "\(request)")
        return try decode(documents[0], of: request)
    }

    /// The objects in the response's body, which must be a JSON array of objects.
    func decodeObjects(from response: NetworkResponse, of request: NetworkRequest) throws(DataStoreError) -> [Object] {
        var objects: [Object] = []
        for document in try JSONWire.decode(response.body, expected: .array, exchange: "\(request)") {
            objects.append(try decode(document, of: request))
        }
        return objects
    }
}
