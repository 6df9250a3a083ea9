/// An error thrown when a value cannot be converted to or from one of DataStoreCore's formats.
///
/// Like swift-nio's errors, this is a struct around a code rather than an enum, so new codes can
/// be added without breaking callers that `switch` over them. Match on ``code``:
///
/// ```swift
/// catch let error as CodecError where error.code == .truncated { … }
/// ```
public struct CodecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure occurred.
    ///
    /// Every error code in the package has this shape (``DataStoreError/Code`` too): a raw value that
    /// names it, and static constants to match on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as written in Swift.
        public let rawValue: String
        /// A code by name; the constants below are the ones this module throws.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The bytes ended before the value they describe.
        public static let truncated = Code(rawValue: "truncated")
        /// The bytes violate the format: a reserved tag, a non-canonical form, invalid UTF-8,
        /// fields out of order, trailing bytes.
        public static let corrupt = Code(rawValue: "corrupt")
        /// A value of a type the format or conversion cannot represent.
        public static let unsupportedType = Code(rawValue: "unsupportedType")
        /// A record written by a format version this build does not read.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// Arrays and objects nested deeper than the format allows.
        public static let tooDeep = Code(rawValue: "tooDeep")
        /// A number that does not fit the type it must become (for example `UInt64` above `Int64.max`).
        public static let outOfRange = Code(rawValue: "outOfRange")

        /// The code's name, as written in Swift.
        public var description: String { rawValue }
    }

    /// What kind of failure occurred.
    public let code: Code
    /// A human-readable explanation naming the value, type or byte involved.
    public let message: String
    /// The byte offset in the input at which the problem was found, when decoding bytes.
    public let offset: Int?
    /// The path of the field involved, such as `attachments[2].owner`; empty at the top level.
    public private(set) var fieldPath: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure occurred.
    ///   - message: An explanation naming the value, type or byte involved.
    ///   - offset: The byte offset in the input, if decoding bytes.
    ///   - fieldPath: The path of the field involved; empty at the top level.
    public init(_ code: Code, _ message: String, offset: Int? = nil, fieldPath: String = "") {
        self.code = code
        self.message = message
        self.offset = offset
        self.fieldPath = fieldPath
    }

    /// `code`, the field path and the offset when known, then the message.
    public var description: String {
        var text = "CodecError.\(code)"
        if !fieldPath.isEmpty { text += " in field '\(fieldPath)'" }
        if let offset { text += " at offset \(offset)" }
        return text + ": " + message
    }

    /// Creates an error at a Codable coding path, written as a field path (`attachments[2].owner`;
    /// an array index is a key whose string is `Index n`, as the coders here make them).
    init(_ code: Code, _ message: String, codingPath: [any CodingKey]) {
        var path = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        self.init(code, message, fieldPath: path)
    }

    /// Returns this error with `name` (an object field) prefixed to its field path.
    ///
    /// Errors are created where the fault is found, deep inside a value; each enclosing container
    /// adds its own step on the way out, which costs nothing unless an error is thrown.
    func inField(_ name: String) -> CodecError {
        var copy = self
        copy.fieldPath =
            fieldPath.isEmpty ? name : (fieldPath.hasPrefix("[") ? name + fieldPath : name + "." + fieldPath)
        return copy
    }

    /// Returns this error with `[index]` (an array element) prefixed to its field path.
    func inElement(_ index: Int) -> CodecError {
        var copy = self
        copy.fieldPath =
            fieldPath.isEmpty || fieldPath.hasPrefix("[")
            ? "[\(index)]" + fieldPath : "[\(index)]." + fieldPath
        return copy
    }
}
