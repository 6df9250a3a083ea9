package import DataStoreCore

/// The span of index keys an ``QueryPlan/IndexScan`` covers, in key bytes.
///
/// Bounds are encoded with the same per-component budget as the entries, so a cut (truncated)
/// value compares as its entries do; a bound that was cut is made inclusive, because entries
/// sharing its cut bytes may hold values on either side of it. The executor re-checks every
/// condition, so a window may be wider than the conditions, never narrower.
package struct IndexWindow {
    /// Keys below this are outside.
    package var start: [UInt8]
    /// Whether keys that begin with `start` are inside.
    package var startInclusive: Bool
    /// Keys above this are outside; `nil` for no upper end.
    package var end: [UInt8]?
    /// Whether keys that begin with `end` are inside.
    package var endInclusive: Bool
    package var backward: Bool

    package init(scan: QueryPlan.IndexScan, budget: Int) {
        var prefix: [UInt8] = []
        // Room for short components up front: growing the key byte by byte reallocates it.
        prefix.reserveCapacity(scan.equalities.isEmpty ? 0 : min(KeyCodec.maxKeyBytes, 32 * scan.index.fields.count))
        for (field, value) in zip(scan.index.fields, scan.equalities) {
            StorageKeys.appendComponent(value, descending: field.descending, budget: budget, to: &prefix)
        }
        backward = scan.backward
        guard let range = scan.range, scan.equalities.count < scan.index.fields.count else {
            start = prefix
            startInclusive = true
            end = prefix.isEmpty ? nil : prefix
            endInclusive = true
            return
        }
        let descending = scan.index.fields[scan.equalities.count].descending
        func encode(_ bound: ValueRange.Bound?) -> (key: [UInt8], inclusive: Bool)? {
            guard let bound else { return nil }
            var key = prefix
            let cut = StorageKeys.appendComponent(bound.value, descending: descending, budget: budget, to: &key)
            return (key, bound.isInclusive || cut)
        }
        // A descending field's bytes are inverted: its upper value bound is the lower key bound.
        let low = encode(descending ? range.upper : range.lower)
        let high = encode(descending ? range.lower : range.upper)
        start = low?.key ?? prefix
        startInclusive = low?.inclusive ?? true
        end = high?.key ?? (prefix.isEmpty ? nil : prefix)
        endInclusive = high?.inclusive ?? true
    }

    /// The windows `scan` covers: one, or one per value of an `in` on the first field, each
    /// once (values whose keys are cut alike give the same window).
    package static func windows(for scan: QueryPlan.IndexScan, budget: Int) -> [IndexWindow] {
        guard scan.firstFieldValues != nil else { return [IndexWindow(scan: scan, budget: budget)] }
        let scans =
            scan.firstFieldValues.map { values in
                values.map { value in
                    var single = scan
                    single.firstFieldValues = nil
                    single.equalities = [value] + scan.equalities
                    return single
                }
            } ?? [scan]
        var windows: [IndexWindow] = []
        for single in scans {
            let window = IndexWindow(scan: single, budget: budget)
            if !windows.contains(where: { $0.start == window.start && $0.end == window.end }) { windows.append(window) }
        }
        return windows
    }

    /// The window of record keys (encoded ids) in `range`, for a walk of the records database.
    package init(idRange range: ValueRange?, backward: Bool) {
        func encode(_ bound: ValueRange.Bound?) -> (key: [UInt8], inclusive: Bool)? {
            guard let bound else { return nil }
            var key: [UInt8] = []
            let cut = KeyCodec.appendTruncating(bound.value, to: &key, maxBytes: KeyCodec.maxKeyBytes - 1)
            return (key, bound.isInclusive || cut)
        }
        let low = encode(range?.lower)
        let high = encode(range?.upper)
        start = low?.key ?? []
        startInclusive = low?.inclusive ?? true
        end = high?.key
        endInclusive = high?.inclusive ?? true
        self.backward = backward
    }

    /// Whether `key` sorts before the window (a store's walk checks every key it meets: inlinable
    /// into the store's module).
    @inlinable
    package func isBeforeStart(_ key: UnsafeRawBufferPointer) -> Bool {
        let (order, startsWith) = start.withUnsafeBytes { Self.position(of: key, against: $0) }
        return startsWith ? !startInclusive : order < 0
    }

    /// Whether `key` sorts after the window.
    @inlinable
    package func isAfterEnd(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let end else { return false }
        let (order, startsWith) = end.withUnsafeBytes { Self.position(of: key, against: $0) }
        return startsWith ? !endInclusive : order > 0
    }

    /// How `key` sorts against `bound` — -1, 0 or 1, unsigned bytes, a proper prefix first — and
    /// whether it starts with `bound`. Eight bytes at a time: a window checks every key it meets.
    @inlinable @inline(__always)
    package static func position(of key: UnsafeRawBufferPointer, against bound: UnsafeRawBufferPointer) -> (
        order: Int, startsWith: Bool
    ) {
        let common = Swift.min(key.count, bound.count)
        var index = 0
        // Big-endian loads make the integers' order the bytes' order.
        while index &+ 8 <= common {
            let p = UInt64(bigEndian: key.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let q = UInt64(bigEndian: bound.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if p != q { return (p < q ? -1 : 1, false) }
            index &+= 8
        }
        while index < common {
            let p = key[index]
            let q = bound[index]
            if p != q { return (p < q ? -1 : 1, false) }
            index &+= 1
        }
        guard key.count >= bound.count else { return (-1, false) }
        return (key.count == bound.count ? 0 : 1, true)
    }

    /// The smallest byte string greater than every string that starts with `prefix`, or `nil`
    /// when there is none (all 0xFF).
    package static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }
}

extension IndexWindow {
    /// Whether `key` lies inside the window.
    package func contains(_ key: [UInt8]) -> Bool {
        key.withUnsafeBytes { !isBeforeStart($0) && !isAfterEnd($0) }
    }

    /// The part of the window that a walk in its direction meets after `key`, which is excluded.
    /// (Keys are prefix-free, so the keys after `key` are exactly those from `key + [0]` on.)
    package func resuming(after key: [UInt8]) -> IndexWindow {
        var window = self
        if backward {
            (window.end, window.endInclusive) = (key, false)
        } else {
            (window.start, window.startInclusive) = (key + [0], true)
        }
        return window
    }

    /// The part of the window that a walk in its direction meets from the first key that starts
    /// with `prefix` on (its last, walking backward).
    package func resuming(at prefix: [UInt8]) -> IndexWindow {
        var window = self
        if backward {
            (window.end, window.endInclusive) = (prefix, true)
        } else {
            (window.start, window.startInclusive) = (prefix, true)
        }
        return window
    }
}
