package import DataStoreCore

/// The keys of a seed parameter dictionary whose values are all scalars, in the order of the
/// conditions they parse to, which a store's compiled form of the query binds values in.
///
/// Whether a query with those keys compiles depends on the keys alone: every key `==` on its own
/// field, none the id field, plans to one window of one index whatever scalar values it is given
/// (``QueryPlan/pointScan(idField:)``), and any other set of keys never does.
package struct DictionaryShape: Sendable {
    /// The keys, in the order of the conditions they parse to.
    let keys: [String]
    /// Whether the dictionary came with a `limit` option (its only option), whose value a call
    /// binds beside the keys'.
    let limited: Bool

    init(keys: [String], limited: Bool = false) { (self.keys, self.limited) = (keys, limited) }

    /// The shape of `params`, which parsed to `query` (with a `limit` option when `limited`); for
    /// a shape that compiled (`compiled`), its keys in the order of `query`'s conditions, `nil`
    /// when they do not each have their own condition.
    package init?(of params: [String: Value], query: Query, limited: Bool = false, compiled: Bool) {
        self.limited = limited
        guard compiled else {
            self.keys = Array(params.keys)
            return
        }
        guard query.conditions.count == params.count else { return nil }
        var keys: [String] = []
        keys.reserveCapacity(params.count)
        for condition in query.conditions {
            guard let key = params.keys.first(where: { (try? Condition.parse(key: $0).field) == condition.field })
            else { return nil }
            keys.append(key)
        }
        self.keys = keys
    }

    /// Whether `params` has exactly these keys (and a limit when the shape has one); if so, their
    /// values are put in `values` in condition order.
    func bind(_ params: [String: Value], limited: Bool, to values: inout PointValues) -> Bool {
        guard params.count == keys.count, limited == self.limited else { return false }
        for (key, value) in params {
            guard let position = keys.firstIndex(of: key) else { return false }
            values[position] = value
        }
        return true
    }
}

/// An order-independent digest of a parameter dictionary's keys, for finding its
/// ``DictionaryShape`` without hashing every key's bytes.
package enum DictionaryDigest {
    /// The digest of `params`' keys (and of a `limit` option, when `limited`); `nil` when the
    /// dictionary cannot have a compiled shape (no key, more than ``PointValues/capacity``, or a
    /// value that is an array or an object).
    package static func of(_ params: [String: Value], limited: Bool = false) -> Int? {
        guard !params.isEmpty, params.count <= PointValues.capacity else { return nil }
        var digest = params.count &+ (limited ? 0x5851_F42D : 0)
        for (key, value) in params {
            switch value {
            case .array, .object: return nil
            case .null, .bool, .int, .double, .string, .bytes: digest &+= keyDigest(key)
            }
        }
        return digest
    }

    /// A digest of `key` from its length and its first and last eight bytes: keys of one
    /// collection's queries rarely share all three, and a collision only costs a comparison.
    private static func keyDigest(_ key: String) -> Int {
        let word =
            key.utf8.withContiguousStorageIfAvailable { bytes -> UInt64 in
                var head: UInt64 = 0
                var tail: UInt64 = 0
                if bytes.count >= 8, let base = UnsafeRawPointer(bytes.baseAddress) {
                    head = base.loadUnaligned(as: UInt64.self)
                    tail = (base + (bytes.count - 8)).loadUnaligned(as: UInt64.self)
                } else {
                    for byte in bytes { head = head << 8 | UInt64(byte) }
                }
                var mixed = (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15) ^ head
                mixed = ((mixed ^ (mixed >> 31)) &* 0xBF58_476D_1CE4_E5B9) ^ tail
                mixed = (mixed ^ (mixed >> 29)) &* 0x94D0_49BB_1331_11EB
                return mixed ^ (mixed >> 32)
            } ?? UInt64(truncatingIfNeeded: key.hashValue)
        return Int(truncatingIfNeeded: word)
    }
}
