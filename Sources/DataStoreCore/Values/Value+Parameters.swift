// The seed-compatible edge for query dictionaries: `[String: Any]` in, `[String: Value]` out.
import Foundation

extension Value {
    /// Converts the seed's `[String: Any]` parameters (or options) into the query language's
    /// dictionary, once, at the edge: `let paramsDic: [String: Any]? = [...]` passed as it is.
    ///
    /// Each value converts through ``ValueConvertible`` when its type adopts it (`Date`, `UUID`,
    /// `URL`, `Decimal`, every integer width …); otherwise as ``Document/init(dictionary:)``
    /// converts a field (`NSNumber`, `NSNull`, `[Any]`, `[String: Any]` …). An array's elements
    /// convert the same way, so `["owner in": [uuid1, uuid2]]` works.
    ///
    /// - Parameters:
    ///   - dictionary: The parameters; `nil` stays `nil`.
    ///   - role: What the keys are, for messages: `"query key"` or `"option"`.
    /// - Throws: ``DataStoreError/Code/invalidQuery`` (``DataStoreError/Code/invalidOption`` for
    ///   options) naming the key and the Swift type of a value no ``Value`` can hold.
    /// - Complexity: O(*n*) in the number of values.
    package static func parameters(_ dictionary: [String: Any]?, role: ParameterRole) throws(DataStoreError)
        -> [String: Value]?
    {
        guard let dictionary else { return nil }
        var converted: [String: Value] = [:]
        converted.reserveCapacity(dictionary.count)
        for (key, any) in dictionary {
            do throws(CodecError) {
                converted[key] = try parameter(any)
            } catch {
                throw DataStoreError(
                    role == .options ? .invalidOption : .invalidQuery,
                    "\(role == .options ? "option" : "query key") '\(key)' has a value of type \(type(of: any)) "
                        + "that cannot be a query value: \(error.message)", underlying: error)
            }
        }
        return converted
    }

    /// Whether ``parameters(_:role:)`` converts conditions or options.
    package enum ParameterRole: Sendable {
        /// Query parameters: errors are `.invalidQuery`.
        case conditions
        /// Query options: errors are `.invalidOption`.
        case options
    }

    /// One parameter value: a ``ValueConvertible`` by its own value, an array element by element,
    /// anything else as a document field.
    private static func parameter(_ any: Any) throws(CodecError) -> Value {
        // Foundation objects first: `as?` would bridge an NSNumber to whichever Swift number type
        // it tries, and an NSArray to a Swift array with everything inside it, recursively.
        if type(of: any) is AnyClass, any is NSObject { return try Value(any: any) }
        if let convertible = any as? any ValueConvertible { return try convertible.documentValue }
        if let elements = any as? [Any], type(of: any) != [UInt8].self {
            var values: [Value] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do throws(CodecError) {
                    if !(type(of: element) is AnyClass && element is NSObject),
                        let convertible = element as? any ValueConvertible
                    {
                        values.append(try convertible.documentValue)
                    } else {
                        values.append(try Value(any: element))
                    }
                } catch {
                    throw error.inElement(index)
                }
            }
            return .array(values)
        }
        return try Value(any: any)
    }
}
