// The seed-compatible edge: `[String: Any]` in and out. Nothing else in the module sees `Any`.
import CoreFoundation
import Foundation

extension Document {
    /// Converts an ``ObjectCoder`` dictionary into a document.
    ///
    /// Accepted values, at any depth:
    /// - `nil` (an `Optional.none` stored in `Any`) and `NSNull` → ``Value/null``;
    /// - `Bool` → ``Value/bool(_:)``;
    /// - every integer type → ``Value/int(_:)`` (unsigned values above `Int64.max` are an error);
    /// - `Double`, `Float`, `Float16` where available → ``Value/double(_:)``;
    /// - `String`, `Substring`, `Character`, `NSString` → ``Value/string(_:)``;
    /// - `Data`, `[UInt8]` → ``Value/bytes(_:)``;
    /// - `Date` → ``Value/double(_:)`` holding seconds since 1970;
    /// - `[Any]`, `NSArray` → ``Value/array(_:)``; `[String: Any]`, `NSDictionary` with string
    ///   keys, `Document` → ``Value/object(_:)``; ``Value`` as itself.
    /// - `NSNumber` is read by its stored type: `objCType` `"c"`/`"B"` (how Foundation on Linux
    ///   stores a Boolean; `Int8` is stored as `"i"` there) → bool, `"f"`/`"d"` → double, unsigned
    ///   types → int when ≤ `Int64.max`, otherwise int.
    /// - `Decimal` and `NSDecimalNumber` (which JSONSerialization returns for long literals) are
    ///   read from their decimal digits: an integral one → int when it fits `Int64` (otherwise
    ///   `.outOfRange`, the rule for every integer), any other → the nearest double.
    /// - any other ``ValueConvertible`` type (`UUID`, `URL`, an application's own) → its
    ///   ``ValueConvertible/documentValue``.
    ///
    /// - Parameter dictionary: The fields, as `toDictionary()` returns them.
    /// - Throws: `CodecError.unsupportedType` naming the field path (such as
    ///   `attachments[2].owner`) and the Swift type of a value it cannot represent;
    ///   `CodecError.outOfRange` for an integer outside `Int64`;
    ///   `CodecError.tooDeep` beyond `RecordCodec/maxDepth` levels.
    /// - Complexity: O(*n*) in the number of values.
    public init(dictionary: [String: Any]) throws(CodecError) {
        self = try Document.convert(dictionary, depth: 1)
    }

    /// Returns the fields as a dictionary for ``ObjectCoder/init(dictionary:)``: `String`, `Int`
    /// (for ``Value/int(_:)``), `Double`, `Bool`, `Data`, `NSNull` for null, `[Any]` and
    /// `[String: Any]`.
    ///
    /// - Complexity: O(*n*) in the number of values.
    public func toDictionary() -> [String: Any] {
        var dictionary: [String: Any] = [:]
        dictionary.reserveCapacity(count)
        for (name, value) in fields { dictionary[name] = value.toAny() }
        return dictionary
    }

    fileprivate static func convert(_ dictionary: [String: Any], depth: Int) throws(CodecError) -> Document {
        guard depth <= RecordCodec.maxDepth else {
            throw CodecError(.tooDeep, "dictionaries nest deeper than \(RecordCodec.maxDepth) levels")
        }
        var fields: [String: Value] = [:]
        fields.reserveCapacity(dictionary.count)
        for (name, any) in dictionary {
            do throws(CodecError) {
                fields[name] = try Value.convert(any, depth: depth)
            } catch {
                throw error.inField(name)
            }
        }
        return Document(fields)
    }
}

extension Value {
    /// Converts one `Any` as ``Document/init(dictionary:)`` does.
    ///
    /// - Throws: See ``Document/init(dictionary:)``.
    /// - Complexity: O(*n*) in the number of values.
    public init(any: Any) throws(CodecError) {
        self = try Value.convert(any, depth: 0)
    }

    /// Returns this value as ``Document/toDictionary()`` renders it.
    ///
    /// Arrays and objects are converted with an explicit stack rather than by recursion, so a
    /// value of any depth converts without overflowing the stack.
    /// - Complexity: O(*n*) in the number of values.
    public func toAny() -> Any {
        guard isContainer else { return scalarAny }
        var open = [OpenConversion(self)]
        while true {
            if let element = open[open.count - 1].nextElement {
                if element.isContainer {
                    open.append(OpenConversion(element))
                } else {
                    open[open.count - 1].add(element.scalarAny)
                }
                continue
            }
            let finished = open.removeLast().converted
            if open.isEmpty { return finished }
            open[open.count - 1].add(finished)
        }
    }

    private var scalarAny: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): Int(value)
        case .double(let value): value
        case .string(let value): value
        case .bytes(let value): Data(value)
        case .array, .object: preconditionFailure("scalarAny is asked only of scalars")
        }
    }

    /// `depth` counts the containers around `any`.
    fileprivate static func convert(_ any: Any, depth: Int) throws(CodecError) -> Value {
        // A real NSNumber first: Swift's `as?` would happily turn NSNumber(1) into `true`.
        if type(of: any) is NSNumber.Type, let number = any as? NSNumber {
            return try convert(number)
        }
        // Foundation's containers before any cast to a Swift type: casting one to a Swift type
        // (even `[UInt8]`) converts everything nested inside it, recursively, before the depth
        // check could run. Casting a Swift container to a class does the same the other way,
        // so the classes are tried on class instances only.
        if type(of: any) is AnyClass, let value = try convert(object: any, depth: depth) {
            return value
        }
        if let scalar = try convertScalar(any) { return scalar }
        switch any {
        case let value as Value:
            try value.checkNesting(limit: RecordCodec.maxDepth - depth)
            return value
        case let value as Document:
            try Value.object(value).checkNesting(limit: RecordCodec.maxDepth - depth)
            return .object(value)
        case let value as [String: Any]:
            return .object(try Document.convert(value, depth: depth + 1))
        case let value as [Any]:
            return try convertArray(value, depth: depth + 1)
        default:
            break
        }
        // `Optional.none` inside `Any` is not matched by the patterns above.
        if let optional = any as? any OptionalProtocol {
            guard let wrapped = optional.wrappedAny else { return .null }
            return try convert(wrapped, depth: depth)
        }
        // Last, so every type above keeps its rule (a Decimal stays a number here).
        if let convertible = any as? any ValueConvertible {
            let value = try convertible.documentValue
            try value.checkNesting(limit: RecordCodec.maxDepth - depth)
            return value
        }
        throw CodecError(.unsupportedType, "values of type \(type(of: any)) cannot be stored")
    }

    /// A Swift or Foundation scalar as a value, or `nil` when `any` is none of them.
    private static func convertScalar(_ any: Any) throws(CodecError) -> Value? {
        switch any {
        case let value as Decimal where type(of: any) == Decimal.self: return try convert(value)
        case let value as Bool: return .bool(value)
        case let value as String: return .string(value)
        case let value as Int: return .int(Int64(value))
        case let value as Double: return .double(value)
        case let value as Int64: return .int(value)
        case let value as Int32: return .int(Int64(value))
        case let value as Int16: return .int(Int64(value))
        case let value as Int8: return .int(Int64(value))
        case let value as UInt8: return .int(Int64(value))
        case let value as UInt16: return .int(Int64(value))
        case let value as UInt32: return .int(Int64(value))
        case let value as UInt: return try convertUnsigned(UInt64(value))
        case let value as UInt64: return try convertUnsigned(value)
        case let value as Float: return .double(Double(value))
        case let value as Substring: return .string(String(value))
        case let value as Character: return .string(String(value))
        case let value as Data: return .bytes(Array(value))
        // An exact type test: `as [UInt8]` would also match an empty `[Int]` or an NSArray of numbers.
        case let value as [UInt8] where type(of: any) == [UInt8].self: return .bytes(value)
        case let value as Date: return .double(value.timeIntervalSince1970)
        default:
            break
        }
        #if !((os(macOS) || targetEnvironment(macCatalyst)) && arch(x86_64))
        if #available(macOS 11.0, iOS 14.0, *), let value = any as? Float16 { return .double(Double(value)) }
        #endif
        return nil
    }

    /// Converts a Foundation object: `NSNull`, `NSDictionary`, `NSArray`; `nil` for another class.
    private static func convert(object any: Any, depth: Int) throws(CodecError) -> Value? {
        switch any {
        case is NSNull: return .null
        case let value as NSDictionary:
            return .object(try Document.convert(try fields(of: value), depth: depth + 1))
        case let value as NSArray:
            return try convertArray(elements(of: value), depth: depth + 1)
        default:
            return nil
        }
    }

    /// Whether `object` is an `NSArray` or an `NSDictionary`, which ``elements(of:)`` and
    /// ``fields(of:)`` hand on as they are.
    private static func isContainer(_ object: AnyObject) -> Bool {
        object is NSArray || object is NSDictionary
    }

    /// The elements of `array`, a nested `NSArray` or `NSDictionary` as the object itself.
    ///
    /// Foundation's own element access (`object(at:)`, iteration) on Linux converts a nested one
    /// to a Swift collection, recursively through everything inside it; so containers are read
    /// through CoreFoundation, which returns the stored object, and only other elements the
    /// usual way.
    private static func elements(of array: NSArray) -> [Any] {
        let storage = unsafeBitCast(array, to: CFArray.self)
        return (0..<array.count).map { index in
            let element = Unmanaged<AnyObject>.fromOpaque(CFArrayGetValueAtIndex(storage, index)).takeUnretainedValue()
            return isContainer(element) ? element : array.object(at: index)
        }
    }

    /// The fields of `dictionary`, read as ``elements(of:)`` reads an array's.
    private static func fields(of dictionary: NSDictionary) throws(CodecError) -> [String: Any] {
        let storage = unsafeBitCast(dictionary, to: CFDictionary.self)
        let count = CFDictionaryGetCount(storage)
        var keys = [UnsafeRawPointer?](repeating: nil, count: count), values = keys
        CFDictionaryGetKeysAndValues(storage, &keys, &values)
        var fields: [String: Any] = [:]
        for (key, element) in zip(keys, values) {
            let key = Unmanaged<AnyObject>.fromOpaque(key!).takeUnretainedValue()
            guard let name = key as? String else {
                throw CodecError(
                    .unsupportedType, "dictionary key of type \(type(of: key)); field names must be strings")
            }
            let element = Unmanaged<AnyObject>.fromOpaque(element!).takeUnretainedValue()
            fields[name] = isContainer(element) ? element : dictionary.object(forKey: key) as Any
        }
        return fields
    }

    private static func convertArray(_ array: [Any], depth: Int) throws(CodecError) -> Value {
        guard depth <= RecordCodec.maxDepth else {
            throw CodecError(.tooDeep, "arrays nest deeper than \(RecordCodec.maxDepth) levels")
        }
        var elements: [Value] = []
        elements.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            do throws(CodecError) {
                elements.append(try convert(element, depth: depth))
            } catch {
                throw error.inElement(index)
            }
        }
        return .array(elements)
    }

    /// An integral decimal is an integer (or `.outOfRange`), as an integer literal in JSON is;
    /// any other is the double nearest to its decimal digits.
    private static func convert(_ decimal: Decimal) throws(CodecError) -> Value {
        guard decimal.isFinite else {
            throw CodecError(.unsupportedType, "the decimal \(decimal) is not a number")
        }
        let digits = decimal.description
        if decimal.exponent >= 0 || !digits.contains(".") {
            guard let integer = Int64(digits) else { throw CodecError.integerOutOfRange(digits) }
            return .int(integer)
        }
        return try CodecError.nearestDouble(digits)
    }

    private static func convertUnsigned(_ value: UInt64) throws(CodecError) -> Value {
        guard let signed = Int64(exactly: value) else {
            throw CodecError(.outOfRange, "unsigned integer \(value) exceeds Int64.max")
        }
        return .int(signed)
    }

    private static func convert(_ number: NSNumber) throws(CodecError) -> Value {
        // JSONSerialization hands long literals back as NSDecimalNumber, whose doubleValue is
        // not correctly rounded; its decimal digits are exact.
        if let decimal = number as? NSDecimalNumber { return try convert(decimal.decimalValue) }
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .double(number.doubleValue)
        case "C", "S", "I", "L", "Q": return try convertUnsigned(number.uint64Value)
        default: return .int(number.int64Value)
        }
    }
}

/// An array or object being converted by ``Value/toAny()``: its elements (or field values, in
/// the order of `names`) and what has been converted so far.
private struct OpenConversion {
    private let values: [Value]
    private let names: [String]?
    private var array: [Any] = []
    private var dictionary: [String: Any] = [:]

    init(_ value: Value) {
        switch value {
        case .array(let elements):
            values = elements
            names = nil
            array.reserveCapacity(elements.count)
        case .object(let document):
            values = Array(document.fields.values)
            names = Array(document.fields.keys)
            dictionary.reserveCapacity(document.count)
        default:
            preconditionFailure("OpenConversion holds only arrays and objects")
        }
    }

    /// The next element to convert, or `nil` when all are.
    var nextElement: Value? {
        // Not `… ? values[index] : nil`: `nil` would become `Value.null` there.
        let index = names == nil ? array.count : dictionary.count
        guard index < values.count else { return nil }
        return values[index]
    }

    /// Adds the converted ``nextElement``.
    mutating func add(_ converted: Any) {
        if let names {
            dictionary[names[dictionary.count]] = converted
        } else {
            array.append(converted)
        }
    }

    var converted: Any { names == nil ? array : dictionary }
}

/// Lets `convert` see through an `Optional` stored in `Any`, whatever its wrapped type.
private protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrappedAny: Any? { map { $0 as Any } }
}
