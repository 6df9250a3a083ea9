/// An error from a model: the local store, a REST model, or a query they were given.
///
/// Like ``CodecError``, a struct around an extensible ``Code``, so callers `catch` by name and new
/// codes never break them:
///
/// ```swift
/// do { _ = try await messages.get(id: "42") }
/// catch let error as DataStoreError where error.code == .notFound { … }
/// ```
///
/// The message always names what was wrong: the collection and id, the field and value, the
/// index, the query key or option.
public struct DataStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, by name.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No object has the id (`get`, `remove`; a REST 404).
        public static let notFound = Code(rawValue: "notFound")
        /// `add` of an id that is already stored.
        public static let duplicateID = Code(rawValue: "duplicateID")
        /// A write would give a unique index two objects with the same value.
        public static let uniqueViolation = Code(rawValue: "uniqueViolation")
        /// A record changed underneath a context between its read and its save.
        public static let conflict = Code(rawValue: "conflict")
        /// A query parameter key, operator or value is malformed.
        public static let invalidQuery = Code(rawValue: "invalidQuery")
        /// A query option (`limit`, `offset`, `sort`) is unknown or of the wrong type.
        public static let invalidOption = Code(rawValue: "invalidOption")
        /// An id is missing, empty, too long, or of a type ids cannot have.
        public static let invalidID = Code(rawValue: "invalidID")
        /// A field value cannot be stored or indexed as declared.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// An object could not be converted to or from a document, or stored bytes are corrupt.
        public static let codec = Code(rawValue: "codec")
        /// The storage engine failed (disk full, map cannot grow, permission, …).
        public static let storage = Code(rawValue: "storage")
        /// A declared schema (collection or index) disagrees with what is stored.
        public static let schemaMismatch = Code(rawValue: "schemaMismatch")
        /// The store on disk was written by a newer format version.
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        /// A network call failed before an HTTP answer (refused, timed out, …).
        public static let network = Code(rawValue: "network")
        /// A server answered with a status outside 2xx.
        public static let httpStatus = Code(rawValue: "httpStatus")
        /// A server's answer was not the JSON shape expected.
        public static let badResponse = Code(rawValue: "badResponse")
        /// The store or context was closed or discarded.
        public static let closed = Code(rawValue: "closed")
        /// A context's snapshot was ended (past `DataStore.Options.maxSnapshotAge`, or to let the
        /// map grow) after it had been read: `refresh()` the context to read on.
        public static let snapshotExpired = Code(rawValue: "snapshotExpired")
        /// The model cannot make this call (a model without an ``ObjectMapping`` asked for a
        /// protocol default that needs one).
        public static let unsupported = Code(rawValue: "unsupported")
        /// A migration failed; the message names it, and the store is as it was before it.
        public static let migrationFailed = Code(rawValue: "migrationFailed")
        /// A page token (`PageToken` of DataStoreKit) is damaged, or was made for another
        /// collection, query or plan.
        public static let invalidPageToken = Code(rawValue: "invalidPageToken")
        /// A change feed was asked to resume after a commit whose successors were trimmed: the
        /// error's ``DataStoreError/underlying`` is DataStoreKit's `ChangesTrimmed`, naming the oldest
        /// commit still available.
        public static let changesTrimmed = Code(rawValue: "changesTrimmed")

        /// A document is larger than the store takes (`maxDocumentBytes` of the store's options),
        /// or than the backend can hold.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// A commit's outcome could not be learned: the change set may or may not have been
        /// written. The message says how to find out (the `CommitID` or a document's version).
        public static let outcomeUnknown = Code(rawValue: "outcomeUnknown")
        /// A PostgreSQL URL or connection string is malformed, or names a scheme no store opens.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// A wait passed its bound (a connection, a statement or a save: the message names it).
        public static let timedOut = Code(rawValue: "timedOut")

        public var description: String { rawValue }
    }

    /// The named code.
    public let code: Code
    /// A sentence naming what was wrong (collection, id, field, value, index, key, option, URL).
    public let message: String
    /// The error this one wraps (an `LMDBError`, a `CodecError`, a `URLError`), if any.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The code and the message, then the underlying error where it adds something: its name
    /// alone when the message already repeats its text (as an `HTTPStatusError`'s does).
    public var description: String {
        guard let note = underlyingNote else { return "DataStoreError.\(code): \(message)" }
        return "DataStoreError.\(code): \(message) (\(note))"
    }

    /// What the underlying error adds to the message: `nil` when the message already says all of
    /// it, its name (the text before its first `": "`) when the message repeats the rest.
    public var underlyingNote: String? {
        guard let underlying else { return nil }
        let cause = (underlying as? DataStoreError)?.message ?? "\(underlying)"
        if message.contains(cause) { return nil }
        if let separator = cause.range(of: ": "), message.contains(cause[separator.upperBound...]) {
            return String(cause[..<separator.lowerBound])
        }
        return cause
    }

    public static func == (lhs: DataStoreError, rhs: DataStoreError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
