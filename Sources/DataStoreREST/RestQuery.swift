// Query parameters and options on the wire (see docs/rest.md, "Queries on the wire").
import DataStoreCore

/// Turns the seed's `params` and `options` into URL query items.
enum RestQuery {
    /// The query-item names that carry options; field names starting with `_` are refused so
    /// they never collide.
    static let limitItem = "_limit"
    static let offsetItem = "_offset"
    static let sortItem = "_sort"

    /// The query items for `params` and `options`: first each parameter, keys verbatim and sorted
    /// by UTF-8 bytes, then `_sort`, `_offset`, `_limit` when set.
    ///
    /// Everything is checked first with ``/DataStoreCore/Query/init(params:options:)``, so a bad key fails here,
    /// with the same error the local store gives, and nothing is sent.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the key (also for a field starting with
    ///   `_`, or a value JSON cannot carry), `.invalidOption` naming the option.
    /// - Complexity: O(*n* log *n*) in the number of parameters, plus the size of the values.
    static func items(params: [String: Value], options: [String: Value]) throws(DataStoreError) -> [(
        name: String, value: String
    )] {
        let query = try Query(params: params, options: options)
        var items: [(name: String, value: String)] = []
        for condition in query.conditions where condition.field.hasPrefix("_") {
            throw DataStoreError(
                .invalidQuery,
                "query field \"\(condition.field)\" starts with '_', which Restify reserves for options (_limit, _offset, _sort)"
            )
        }
        for key in params.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            items.append((key, try text(params[key]!, key: key)))
        }
        if !query.sort.isEmpty {
            let sort = Value.array(
                query.sort.map { key in
                    Value.object(Document([key.field: .object(Document(["ascending": .bool(key.ascending)]))]))
                })
            items.append((sortItem, try JSONWire.text(sort, path: "sort")))
        }
        if query.offset != 0 { items.append((offsetItem, String(query.offset))) }
        if let limit = query.limit { items.append((limitItem, String(limit))) }
        return items
    }

    /// A parameter value as query text: a string as it is; an integer in decimal; a double in
    /// the shortest text that reads back exactly (an integral one below 2^53 without a fraction:
    /// `1437118258`); `true`/`false`; `null`; an array or object as JSON (`in` lists: `["a","b"]`).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the key for a NaN or infinite number.
    static func text(_ value: Value, key: String) throws(DataStoreError) -> String {
        switch value {
        case .string(let string): return string
        case .int(let number): return String(number)
        case .double(let number):
            guard number.isFinite else {
                throw DataStoreError(
                    .invalidQuery, "query key \"\(key)\" compares with \(number), which cannot be sent")
            }
            if number.rounded() == number, abs(number) < 9_007_199_254_740_992 {
                return String(Int64(number))
            }
            return number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .bytes, .array, .object:
            do {
                return try JSONWire.text(value, path: key)
            } catch {
                throw DataStoreError(.invalidQuery, "query key \"\(key)\": \(error.message)")
            }
        }
    }

    /// `text` with every byte outside the unreserved set (`A–Z a–z 0–9 - . _ ~`) written as
    /// `%XX`: a space is `%20`, `>=` is `%3E%3D`, `/` is `%2F`.
    ///
    /// - Complexity: O(*n*) in the UTF-8 length.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result.append("%")
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }
}
