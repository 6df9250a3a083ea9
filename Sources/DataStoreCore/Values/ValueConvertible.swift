#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A Swift type with a ``Value`` of its own, so a variable of it can be a query value or a stored
/// field without wrapping: `["created_ts >=": date, "owner": uuid, "n": count]` (GRDB's
/// `DatabaseValueConvertible` is the model).
///
/// | type | value | back from |
/// |---|---|---|
/// | `String` | ``Value/string(_:)`` | a string |
/// | `Bool` | ``Value/bool(_:)`` | a Boolean |
/// | `Int`, `Int8` … `Int64`, `UInt`, `UInt8` … `UInt64` | ``Value/int(_:)`` (an unsigned value above `Int64.max` throws `.outOfRange`) | a number that fits exactly |
/// | `Double`, `Float` | ``Value/double(_:)`` | a number (a `Float` only when exact) |
/// | `Date` | ``Value/double(_:)`` of seconds since 1970, as `DocumentEncoder` stores a `Date` | a number |
/// | `UUID` | ``Value/string(_:)`` of `uuidString` (upper-case), as `Codable` stores it | a UUID string |
/// | `URL` | ``Value/string(_:)`` of `absoluteString`, as `DocumentEncoder` stores it | a string that parses |
/// | `Decimal` | ``Value/string(_:)`` of its exact decimal digits, as `DocumentEncoder` stores it | a string or a number |
/// | `Data` | ``Value/bytes(_:)`` | bytes |
/// | `Optional` | `nil` is ``Value/null``, else the wrapped value's | `null`, or the wrapped type's |
/// | `Array` | ``Value/array(_:)`` of its elements' values | an array whose elements all convert |
/// | ``Value``, ``Document`` | themselves (a document as ``Value/object(_:)``) | themselves |
///
/// A `Decimal` stored as a string compares as a string (`"10" < "9"`), so a range over one is not a
/// numeric range; store a `Double` or a scaled integer for that.
public protocol ValueConvertible {
    /// The value this one is stored and compared as.
    /// - Throws: ``CodecError`` `.outOfRange` or `.unsupportedType` for a value no ``Value`` holds
    ///   (an unsigned integer above `Int64.max`, a NaN decimal).
    var documentValue: Value { get throws(CodecError) }

    /// The instance `value` stands for, or `nil` when it stands for none of this type.
    init?(documentValue value: Value)
}

extension ValueConvertible where Self: FixedWidthInteger {
    /// ``Value/int(_:)``; an unsigned value above `Int64.max` throws `.outOfRange`.
    public var documentValue: Value {
        get throws(CodecError) {
            guard let exact = Int64(exactly: self) else {
                throw CodecError(.outOfRange, "the integer \(self) of type \(Self.self) exceeds Int64.max")
            }
            return .int(exact)
        }
    }

    /// The integer of a number that fits this type exactly.
    public init?(documentValue value: Value) {
        guard let number = value.intValue, let exact = Self(exactly: number) else { return nil }
        self = exact
    }
}

extension Int: ValueConvertible {}
extension Int8: ValueConvertible {}
extension Int16: ValueConvertible {}
extension Int32: ValueConvertible {}
extension Int64: ValueConvertible {}
extension UInt: ValueConvertible {}
extension UInt8: ValueConvertible {}
extension UInt16: ValueConvertible {}
extension UInt32: ValueConvertible {}
extension UInt64: ValueConvertible {}

extension String: ValueConvertible {
    /// ``Value/string(_:)``.
    public var documentValue: Value { .string(self) }
    /// The string of a ``Value/string(_:)``.
    public init?(documentValue value: Value) {
        guard let string = value.stringValue else { return nil }
        self = string
    }
}

extension Bool: ValueConvertible {
    /// ``Value/bool(_:)``.
    public var documentValue: Value { .bool(self) }
    /// The Boolean of a ``Value/bool(_:)``.
    public init?(documentValue value: Value) {
        guard let bool = value.boolValue else { return nil }
        self = bool
    }
}

extension Double: ValueConvertible {
    /// ``Value/double(_:)``.
    public var documentValue: Value { .double(self) }
    /// Any number (an `Int64` beyond ±2^53 rounded to the nearest double).
    public init?(documentValue value: Value) {
        guard let number = value.doubleValue else { return nil }
        self = number
    }
}

extension Float: ValueConvertible {
    /// ``Value/double(_:)`` of the same number.
    public var documentValue: Value { .double(Double(self)) }
    /// A number a `Float` holds exactly.
    public init?(documentValue value: Value) {
        guard let number = value.doubleValue, let exact = Float(exactly: number) else { return nil }
        self = exact
    }
}

extension Date: ValueConvertible {
    /// ``Value/double(_:)`` of seconds since 1970, as ``DocumentEncoder`` stores a `Date`.
    public var documentValue: Value { .double(timeIntervalSince1970) }
    /// The date a number of seconds since 1970 stands for.
    public init?(documentValue value: Value) {
        guard let seconds = value.doubleValue else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

extension UUID: ValueConvertible {
    /// ``Value/string(_:)`` of `uuidString`, as `UUID`'s `Codable` form stores it.
    public var documentValue: Value { .string(uuidString) }
    /// The UUID a string spells (either case).
    public init?(documentValue value: Value) {
        guard let string = value.stringValue, let uuid = UUID(uuidString: string) else { return nil }
        self = uuid
    }
}

extension Data: ValueConvertible {
    /// ``Value/bytes(_:)``.
    public var documentValue: Value { .bytes(Array(self)) }
    /// The bytes of a ``Value/bytes(_:)``.
    public init?(documentValue value: Value) {
        guard let bytes = value.bytesValue else { return nil }
        self.init(bytes)
    }
}

extension Value: ValueConvertible {
    /// Itself.
    public var documentValue: Value { self }
    /// `value` itself.
    public init?(documentValue value: Value) { self = value }
}

extension Document: ValueConvertible {
    /// ``Value/object(_:)``.
    public var documentValue: Value { .object(self) }
    /// The document of a ``Value/object(_:)``.
    public init?(documentValue value: Value) {
        guard let document = value.objectValue else { return nil }
        self = document
    }
}

extension Optional: ValueConvertible where Wrapped: ValueConvertible {
    /// ``Value/null`` for `nil`, else the wrapped value's.
    public var documentValue: Value {
        get throws(CodecError) {
            guard let self else { return .null }
            return try self.documentValue
        }
    }

    /// `nil` for ``Value/null``, else the wrapped type's instance (failing when it fails).
    public init?(documentValue value: Value) {
        if value.isNull {
            self = .none
            return
        }
        guard let wrapped = Wrapped(documentValue: value) else { return nil }
        self = .some(wrapped)
    }
}

extension Array: ValueConvertible where Element: ValueConvertible {
    /// ``Value/array(_:)`` of the elements' values.
    public var documentValue: Value {
        get throws(CodecError) {
            var values: [Value] = []
            values.reserveCapacity(count)
            for (index, element) in enumerated() {
                do throws(CodecError) { values.append(try element.documentValue) } catch {
                    throw error.inElement(index)
                }
            }
            return .array(values)
        }
    }

    /// The elements of an array whose every element converts.
    public init?(documentValue value: Value) {
        guard let values = value.arrayValue else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for value in values {
            guard let element = Element(documentValue: value) else { return nil }
            elements.append(element)
        }
        self = elements
    }
}

extension URL: ValueConvertible {
    /// ``Value/string(_:)`` of `absoluteString`, as ``DocumentEncoder`` stores a `URL`.
    public var documentValue: Value { .string(absoluteString) }
    /// The URL a string spells.
    public init?(documentValue value: Value) {
        guard let string = value.stringValue, let url = URL(string: string) else { return nil }
        self = url
    }
}

extension Decimal: ValueConvertible {
    /// ``Value/string(_:)`` of its exact decimal digits, as ``DocumentEncoder`` stores a `Decimal`.
    /// - Throws: ``CodecError`` `.unsupportedType` for a NaN.
    public var documentValue: Value {
        get throws(CodecError) {
            guard isFinite else { throw CodecError(.unsupportedType, "the decimal \(self) is not a number") }
            return .string(description)
        }
    }

    /// The decimal a string of decimal digits spells, or the exact value of an integer; a double
    /// gives the decimal of its shortest round-tripping digits.
    public init?(documentValue value: Value) {
        switch value {
        case .string(let digits):
            guard let decimal = Decimal(string: digits, locale: nil), decimal.isFinite else { return nil }
            self = decimal
        case .int(let integer): self.init(integer)
        case .double(let number) where number.isFinite:
            guard let decimal = Decimal(string: "\(number)", locale: nil) else { return nil }
            self = decimal
        default: return nil
        }
    }
}
