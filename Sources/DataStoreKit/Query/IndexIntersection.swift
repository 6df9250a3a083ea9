import DataStoreCore
import LMDB

#if canImport(Glibc)
import Glibc
import DataStoreEngine
#endif

/// The documents two index windows share, read before any record: the candidates of an index scan
/// narrowed by a second index whose field an `==` condition fixes (``/DataStoreEngine/QueryPlan/intersection``), as
/// MongoDB's `AND_SORTED` stage and PostgreSQL's `BitmapAnd` combine two indexes.
///
/// Each window is one exact key prefix — every field of its index fixed, no value cut — so its
/// entries are that prefix, then the record key: they come in id order. The walk zig-zags: each
/// cursor seeks to the other's id, so it passes over the ids the other window lacks without reading
/// them, and a record is read only for an id both hold. Each step moves one cursor past at least
/// one entry, and a seek costs no more than the record read it can save (a descent, most often
/// ending in the page the cursor is on), so the walk is never much dearer than reading every
/// candidate of the first window, and is far cheaper when the windows share few ids.
struct IndexIntersection {
    /// The key prefix of the window whose entries are handed on.
    let primary: [UInt8]
    /// The key prefix of the window that narrows it.
    let secondary: [UInt8]

    /// The exact key prefix of `scan` over an index with per-component budget `budget`, or `nil`
    /// when its entries need not come in id order: a field left free, a range, several seeks, a
    /// multi-value index, or a value cut to fit the key.
    static func exactPrefix(of scan: QueryPlan.IndexScan, budget: Int) -> [UInt8]? {
        guard scan.firstFieldValues == nil, scan.range == nil, !scan.backward, !scan.index.multiValue,
            scan.equalities.count == scan.index.fields.count
        else { return nil }
        var prefix: [UInt8] = []
        for (field, value) in zip(scan.index.fields, scan.equalities) {
            if StorageKeys.appendComponent(value, descending: field.descending, budget: budget, to: &prefix) {
                return nil
            }
        }
        return prefix
    }

    /// Calls `body` with the key and value of each entry of the primary window (under `primaryCursor`)
    /// whose record key the secondary window (under `secondaryCursor`) holds too, in id order, until
    /// it returns `false`.
    func visit(
        _ primaryCursor: borrowing Cursor, _ secondaryCursor: borrowing Cursor,
        _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        // Buffers reused at every step: a walk takes a step per id either window holds.
        var firstID: [UInt8] = []
        var secondID: [UInt8] = []
        var target: [UInt8] = []
        target.reserveCapacity(KeyCodec.maxKeyBytes)
        var inFirst = try primaryCursor.withSeek(atOrAfter: primary) { key, _ in
            Self.copyID(key, within: primary, to: &firstID)
        }
        guard inFirst == true else { return }
        var inSecond = try secondaryCursor.withSeek(atOrAfter: secondary) { key, _ in
            Self.copyID(key, within: secondary, to: &secondID)
        }
        while inFirst == true && inSecond == true {
            if firstID == secondID {
                let more = try primaryCursor.withMove(.current) { key, value in try body(key, value) }
                guard more == true else { return }
                inFirst = try primaryCursor.withMove(.next) { key, _ in Self.copyID(key, within: primary, to: &firstID)
                }
                inSecond = try secondaryCursor.withMove(.next) { key, _ in
                    Self.copyID(key, within: secondary, to: &secondID)
                }
            } else if firstID.lexicographicallyPrecedes(secondID) {
                target.removeAll(keepingCapacity: true)
                target.append(contentsOf: primary)
                target.append(contentsOf: secondID)
                inFirst = try primaryCursor.withSeek(atOrAfter: target) { key, _ in
                    Self.copyID(key, within: primary, to: &firstID)
                }
            } else {
                target.removeAll(keepingCapacity: true)
                target.append(contentsOf: secondary)
                target.append(contentsOf: firstID)
                inSecond = try secondaryCursor.withSeek(atOrAfter: target) { key, _ in
                    Self.copyID(key, within: secondary, to: &secondID)
                }
            }
        }
    }

    /// Copies into `id` the record key that ends `key` (``StorageKeys/idKey(inIndexKey:)``) and
    /// returns `true`, or returns `false` when `key` is outside the window of `prefix`.
    private static func copyID(_ key: UnsafeRawBufferPointer, within prefix: [UInt8], to id: inout [UInt8]) -> Bool {
        guard starts(key, with: prefix), let recordKey = StorageKeys.idKey(inIndexKey: key) else { return false }
        id.removeAll(keepingCapacity: true)
        id.append(contentsOf: recordKey)
        return true
    }

    /// Whether `key` starts with `prefix`: whether an entry lies in the window of a key prefix.
    @inline(__always)
    static func starts(_ key: UnsafeRawBufferPointer, with prefix: [UInt8]) -> Bool {
        guard key.count >= prefix.count else { return false }
        return prefix.withUnsafeBytes { memcmp(key.baseAddress!, $0.baseAddress!, $0.count) == 0 }
    }
}
