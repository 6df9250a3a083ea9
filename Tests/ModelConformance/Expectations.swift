// Checks shared by the scenarios.
public import DataStoreCore
public import Testing

extension ModelConformance {
    /// Expects `body` to throw a ``DataStoreError`` with `code`; records an issue otherwise
    /// (including when it returns).
    ///
    /// - Returns: The error, when it has the code.
    @discardableResult
    public static func expectError<T>(
        _ code: DataStoreError.Code, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> T
    ) async -> DataStoreError? {
        do {
            let result = try await body()
            Issue.record(
                "\(what): expected DataStoreError.\(code), but it returned \(result)", sourceLocation: sourceLocation)
        } catch let error as DataStoreError {
            if error.code == code { return error }
            Issue.record("\(what): expected DataStoreError.\(code), got \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record(
                "\(what): expected DataStoreError.\(code), got \(type(of: error)): \(error)",
                sourceLocation: sourceLocation)
        }
        return nil
    }

    /// The ids of `messages`, in order (`"<nil>"` for a missing id).
    public static func ids(_ messages: [ConformanceMessage]) -> [String] {
        messages.map { $0.id ?? "<nil>" }
    }

    /// Adds every message and expects each to come back equal.
    static func addAll(
        _ messages: [ConformanceMessage], to model: Model,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for message in messages {
            let stored = try await model.add(object: message)
            #expect(stored == message, "add returned \(stored) for \(message)", sourceLocation: sourceLocation)
        }
    }

    /// Expects `query` to answer exactly `expected` ids, in order when `ordered`, as a set otherwise.
    static func expectQuery(
        _ model: Model, _ params: [String: Value]?, _ options: [String: Value]? = nil,
        ids expected: [String], ordered: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let found = ids(try await model.query(params: params, options: options))
        if ordered {
            #expect(
                found == expected, "query \(params ?? [:]) options \(options ?? [:])", sourceLocation: sourceLocation)
        } else {
            #expect(
                found.sorted() == expected.sorted(), "query \(params ?? [:]) options \(options ?? [:])",
                sourceLocation: sourceLocation)
            #expect(
                found.count == Set(found).count, "query \(params ?? [:]) answered an object twice: \(found)",
                sourceLocation: sourceLocation)
        }
    }

    /// Five messages between three users over a few seconds, used by the query scenarios:
    ///
    /// | id | from | to | created_ts | type |
    /// |---|---|---|---|---|
    /// | m1 | 1234567890 | 0987654321 | 1437108000.0 | text |
    /// | m2 | 1234567890 | 0987654321 | 1437108600.0 | text |
    /// | m3 | 1234567890 | 5555555555 | 1437118258.0 | image |
    /// | m4 | 0987654321 | 1234567890 | 1437118258.5 | (none) |
    /// | m5 | 5555555555 | 1234567890 | 1437200000.0 | text |
    public static var thread: [ConformanceMessage] {
        [
            ConformanceMessage(
                id: "m1", from: "1234567890", to: "0987654321", message: "hi", type: "text", createdTS: 1437108000),
            ConformanceMessage(
                id: "m2", from: "1234567890", to: "0987654321", message: "there", type: "text", createdTS: 1437108600),
            ConformanceMessage(
                id: "m3", from: "1234567890", to: "5555555555", message: "photo", type: "image", createdTS: 1437118258),
            ConformanceMessage(
                id: "m4", from: "0987654321", to: "1234567890", message: "hello", createdTS: 1437118258.5),
            ConformanceMessage(
                id: "m5", from: "5555555555", to: "1234567890", message: "late", type: "text", createdTS: 1437200000)
        ]
    }
}
