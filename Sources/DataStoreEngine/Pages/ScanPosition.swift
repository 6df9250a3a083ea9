package import DataStoreCore

/// Where a resumable walk of a plan stands: just after the last row it returned
/// (``ResumableScan``). Positions are keys, never counts of rows skipped, so resuming seeks
/// straight to the next row whatever was written meanwhile.
package enum ScanPosition: Hashable, Sendable {
    /// After the entry `key` of window `window`, in scan order: the raw key of the database the
    /// plan walks (index entries, or records). Used by every walk whose order is its key order.
    case key(window: Int, key: [UInt8])
    /// After the row with these sort values and this id, in the query's order: used by sorted
    /// index scans, whose ties are ordered by id (not by index key) and whose long values are cut.
    case row(sortValues: [Value?], id: Value)
    /// After the first `count` rows of a primary-key lookup (its ids come from the query itself).
    case rows(count: Int)
}

extension ScanPosition {
    private enum Kind: UInt8 {
        case key = 1
        case row = 2
        case rows = 3
    }

    /// The position as bytes, for a ``PageToken``.
    package var bytes: [UInt8] {
        switch self {
        case .key(let window, let key):
            return [Kind.key.rawValue] + Self.varint(window) + key
        case .row(let sortValues, let id):
            var fields: [String: Value] = ["id": id]
            for (position, value) in sortValues.enumerated() { fields["\(position)"] = value }
            // Encoding cannot fail: the values were read from a stored record.
            let body = (try? RecordCodec.encode(Document(fields))) ?? []
            return [Kind.row.rawValue] + Self.varint(sortValues.count) + body
        case .rows(let count):
            return [Kind.rows.rawValue] + Self.varint(count)
        }
    }

    /// The position `bytes` describe, or `nil` when they are not one.
    package init?(bytes: ArraySlice<UInt8>) {
        var rest = bytes
        guard let kind = rest.popFirst().flatMap(Kind.init(rawValue:)), let number = Self.readVarint(&rest) else {
            return nil
        }
        switch kind {
        case .key:
            self = .key(window: number, key: Array(rest))
        case .rows:
            guard rest.isEmpty else { return nil }
            self = .rows(count: number)
        case .row:
            guard number <= 64, let document = try? RecordCodec.decode(Array(rest)), let id = document["id"],
                document.fields.count <= number + 1
            else { return nil }
            self = .row(sortValues: (0..<number).map { document["\($0)"] }, id: id)
        }
    }

    private static func varint(_ number: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = UInt64(max(0, number))
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    private static func readVarint(_ bytes: inout ArraySlice<UInt8>) -> Int? {
        var number: UInt64 = 0
        for shift in stride(from: 0, to: 63, by: 7) {
            guard let byte = bytes.popFirst() else { return nil }
            number |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return number <= UInt64(Int.max) ? Int(number) : nil }
        }
        return nil
    }
}
