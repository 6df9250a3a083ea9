/// A field named in a query, a sort or an index: a top-level name, or a path into nested objects
/// written with dots (`"address.city"`), where `\.` is a dot within a name and `\\` a backslash.
///
/// Following a path: an object's field is the next step; through an array, the step is taken in
/// every element that is an object, and the values found are gathered into one array (an element
/// value that is itself an array contributes its elements), so `"tags.name"` over
/// `tags: [{name: "a"}, {name: "b"}]` is the array `["a", "b"]` and matches as array fields do.
/// A step that finds nothing — a missing field, a scalar, an array with no such field — leaves
/// the path missing.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The names, outermost first, without escapes.
    public let components: [String]

    /// The path written as `field`.
    /// - Throws: ``DataStoreError/Code/invalidQuery`` for an empty component (`"a..b"`, `"a."`) or a
    ///   backslash not followed by `.` or `\`.
    public init(parsing field: String) throws(DataStoreError) {
        guard Self.needsParsing(field) else {
            components = [field]
            return
        }
        var components: [String] = []
        var current = ""
        var escaping = false
        for character in field {
            if escaping {
                guard character == "." || character == "\\" else {
                    throw DataStoreError(
                        .invalidQuery,
                        "field \(Query.quoted(field)) has \\\(character); in a field name \\. is a dot and \\\\ "
                            + "a backslash")
                }
                current.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaping {
            throw DataStoreError(.invalidQuery, "field \(Query.quoted(field)) ends with a lone backslash")
        }
        components.append(current)
        if components.contains(where: \.isEmpty) {
            throw DataStoreError(
                .invalidQuery,
                "field \(Query.quoted(field)) has an empty name between dots; write \\. for a dot within a name")
        }
        self.components = components
    }

    /// Throws unless `field` is a valid path, with `context` (the query key or option) before the
    /// reason; a name without dots or backslashes is always valid.
    /// - Throws: ``DataStoreError`` `.invalidQuery`, or `code`.
    public static func check(
        _ field: String, context: @autoclosure () -> String, code: DataStoreError.Code = .invalidQuery
    ) throws(DataStoreError) {
        guard needsParsing(field) else { return }
        do {
            _ = try FieldPath(parsing: field)
        } catch {
            throw DataStoreError(code, "\(context()): \(error.message)")
        }
    }

    /// The path of these names.
    public init(components: [String]) {
        self.components = components
    }

    /// The path as written: names joined by dots, with their dots and backslashes escaped.
    public var description: String {
        components.map(Self.escaping).joined(separator: ".")
    }

    /// `name` written so that it reads as one top-level name: `a.b` becomes `a\.b`.
    public static func escaping(_ name: String) -> String {
        guard needsParsing(name) else { return name }
        var text = ""
        for character in name {
            if character == "." || character == "\\" { text.append("\\") }
            text.append(character)
        }
        return text
    }

    /// Whether `field` holds a dot or a backslash: otherwise it is a top-level name as it stands.
    @inline(__always)
    public static func needsParsing(_ field: String) -> Bool {
        func special(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ".") || byte == UInt8(ascii: "\\") }
        // Over the bytes where they lie: iterating the UTF-8 view costs several times as much.
        return field.utf8.withContiguousStorageIfAvailable { $0.contains(where: special) }
            ?? field.utf8.contains(where: special)
    }

    /// The value at this path in `document`, or `nil` when missing.
    /// - Complexity: O(depth), times the elements of the arrays passed through.
    public func value(in document: Document) -> Value? {
        guard let first = document[components[0]] else { return nil }
        return Self.follow(first, components.dropFirst())
    }

    /// The value at the rest of a path from `value`.
    static func follow(_ value: Value, _ rest: ArraySlice<String>) -> Value? {
        guard let name = rest.first else { return value }
        switch value {
        case .object(let document):
            return document[name].flatMap { follow($0, rest.dropFirst()) }
        case .array(let elements):
            var gathered: [Value] = []
            for element in elements {
                guard case .object(let document) = element, let next = document[name],
                    let found = follow(next, rest.dropFirst())
                else { continue }
                if case .array(let inner) = found { gathered += inner } else { gathered.append(found) }
            }
            return gathered.isEmpty ? nil : .array(gathered)
        default:
            return nil
        }
    }
}
