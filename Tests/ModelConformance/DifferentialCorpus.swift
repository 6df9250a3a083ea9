public import DataStoreCore
import Foundation

/// Random documents and queries for differential tests, which answer them on a store and by brute
/// force (``Query/evaluate(_:idField:)``) and compare: documents with the shapes that trip index
/// code — arrays mixing types, arrays inside arrays, nulls, a lone object or scalar where other
/// documents hold an array, strings sharing long prefixes (cut in index keys) — and queries with
/// every ``Operator`` on top-level and nested fields.
///
/// The fields: `a`, `b`, `c` hold scalars (single-value indexes may cover them); `tags` an array
/// of mixed elements or a lone value; `items` an array of objects with a `sku` (a scalar or an
/// array), or a lone object; `profile` an object with a scalar `city` and a number `zip`, or a
/// scalar.
public enum DifferentialCorpus {
    /// The fields queries name.
    public static let queriedFields = ["a", "b", "c", "id", "tags", "items", "items.sku", "profile", "profile.city"]
    /// The fields a sort may name (scalars in every document).
    public static let sortedFields = ["a", "b", "c", "id", "profile.city"]

    /// A scalar, or `nil` for a missing field.
    public static func scalar(_ rng: inout SeededGenerator) -> Value? {
        switch Int.random(in: 0..<14, using: &rng) {
        case 0: return nil
        case 1: return .null
        case 2: return .bool(Bool.random(using: &rng))
        case 3, 4: return .int(Int64.random(in: -3...3, using: &rng))
        case 5: return .double(Double(Int.random(in: -6...6, using: &rng)) / 2)
        case 6, 7: return .string(["", "a", "ab", "b", "ba", "z"].randomElement(using: &rng)!)
        case 8, 9: return .string(["k", "k1", "k2", "k2a", "k10"].randomElement(using: &rng)!)
        case 10: return .string(longString(&rng))
        case 11: return .bytes([UInt8.random(in: 0...2, using: &rng)])
        default: return .int(Int64.random(in: 0...2, using: &rng))
        }
    }

    /// A string past what an index key holds, sharing all but its end with the others.
    static func longString(_ rng: inout SeededGenerator) -> String {
        String(repeating: "q", count: 600) + ["1", "2", "3", ""].randomElement(using: &rng)!
    }

    /// An array element: a scalar (null for a missing one), an array of scalars, or an object.
    static func element(_ rng: inout SeededGenerator) -> Value {
        switch Int.random(in: 0..<8, using: &rng) {
        case 0: return .array((0..<Int.random(in: 0...2, using: &rng)).map { _ in scalar(&rng) ?? .null })
        case 1: return .object(["sku": scalar(&rng) ?? .null])
        default: return scalar(&rng) ?? .null
        }
    }

    /// An object of `items`: a `sku` (missing, a scalar or an array of scalars).
    static func item(_ rng: inout SeededGenerator) -> Value {
        var item = Document()
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: break
        case 1: item["sku"] = .array((0..<Int.random(in: 1...2, using: &rng)).map { _ in scalar(&rng) ?? .null })
        default: item["sku"] = scalar(&rng) ?? .null
        }
        return .object(item)
    }

    /// Document `number`: its id `d` followed by three digits, and random fields.
    public static func document(_ number: Int, _ rng: inout SeededGenerator) -> Document {
        var document = Document()
        document["id"] = .string(String(format: "d%03d", number))
        for field in ["a", "b", "c"] {
            if let value = scalar(&rng) { document[field] = value }
        }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: break
        case 1: document["tags"] = scalar(&rng) ?? .null
        default: document["tags"] = .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in element(&rng) })
        }
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: break
        case 1: document["items"] = item(&rng)
        case 2: document["items"] = .array([item(&rng), .int(7), item(&rng)])
        default: document["items"] = .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in item(&rng) })
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: break
        case 1: document["profile"] = scalar(&rng) ?? .null
        default:
            var profile = Document()
            if let city = scalar(&rng) { profile["city"] = city }
            profile["zip"] = .int(Int64.random(in: 0...3, using: &rng))
            document["profile"] = .object(profile)
        }
        return document
    }

    /// A condition value for `op` on `field`.
    static func value(for op: Operator, on field: String, _ rng: inout SeededGenerator) -> Value {
        switch op {
        case .exists:
            return .bool(Bool.random(using: &rng))
        case .prefix:
            return .string(
                ["", "a", "b", "k", "k1", "k2", "q", String(repeating: "q", count: 600), "d0"].randomElement(
                    using: &rng)!)
        case .in, .notIn:
            return .array((0..<Int.random(in: 1...3, using: &rng)).map { _ in value(for: .equal, on: field, &rng) })
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // Range operators refuse null (a named error the parser tests cover).
            let value = scalar(&rng) ?? .int(1)
            return value == .null ? .int(1) : value
        case .equal, .notEqual:
            if field == "id" { return .string(String(format: "d%03d", Int.random(in: 0..<130, using: &rng))) }
            if Int.random(in: 0..<10, using: &rng) == 0 {
                return .array((0..<Int.random(in: 0...2, using: &rng)).map { _ in scalar(&rng) ?? .null })
            }
            return scalar(&rng) ?? .null
        }
    }

    /// A query of up to three conditions drawn from every operator, with a sort, limit and offset
    /// at times.
    public static func query(_ rng: inout SeededGenerator) throws -> Query {
        var params: [String: Value] = [:]
        for _ in 0..<Int.random(in: 0...3, using: &rng) {
            let field = queriedFields.randomElement(using: &rng)!
            let op = Operator.allCases.randomElement(using: &rng)!
            params[field + " " + op.rawValue] = value(for: op, on: field, &rng)
        }
        var options: [String: Value] = [:]
        if Bool.random(using: &rng) {
            let keys = (0..<Int.random(in: 1...2, using: &rng)).map { _ in
                (Bool.random(using: &rng) ? "-" : "") + sortedFields.randomElement(using: &rng)!
            }
            if Set(keys.map { $0.trimmingCharacters(in: ["-"]) }).count == keys.count {
                options["sort"] = .array(keys.map(Value.string))
            }
        }
        if Int.random(in: 0..<3, using: &rng) == 0 { options["limit"] = .int(Int64.random(in: 0...5, using: &rng)) }
        if Int.random(in: 0..<4, using: &rng) == 0 { options["offset"] = .int(Int64.random(in: 0...3, using: &rng)) }
        return try Query(params: params, options: options)
    }
}
