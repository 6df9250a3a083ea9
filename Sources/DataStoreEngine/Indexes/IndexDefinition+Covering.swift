extension IndexDefinition {
    /// What a covering index's entries carry, so that a query it serves is answered from the
    /// entries alone, as SQLite's covering indexes, PostgreSQL's `INCLUDE` and MongoDB's covered
    /// queries are.
    ///
    /// ```swift
    /// IndexDefinition("created_ts", covering: .document)
    /// ```
    ///
    /// Every write keeps the copy in the same transaction as the record, so a query through the
    /// index returns exactly what it would return from the records; `DataStore.check()` compares
    /// each copy with its record.
    public struct Covering: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kinds of copy; a stored name is never reused for another meaning.
        private enum Kind: String, Sendable, Hashable, Codable {
            case document
        }

        private let kind: Kind

        private init(_ kind: Kind) { self.kind = kind }

        /// Each entry carries the whole stored record (its version and its document).
        public static let document = Covering(.document)

        /// Reads the kind's stored name (`"document"`).
        /// - Throws: `DecodingError.dataCorrupted` for a name this build does not know.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let name = try container.decode(String.self)
            guard let kind = Kind(rawValue: name) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "unknown covering \"\(name)\" (this build knows \"document\")")
            }
            self.kind = kind
        }

        /// Writes the kind's stored name (`"document"`).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(kind.rawValue)
        }

        /// `covering`, as index descriptions show it.
        public var description: String {
            switch kind {
            case .document: "covering"
            }
        }
    }

    /// Whether each entry carries its whole record.
    package var coversDocument: Bool { covering == .document }
}
