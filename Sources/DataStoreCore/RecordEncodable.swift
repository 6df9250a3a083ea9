/// A type that writes itself straight into a stored record, field by field — the fastest way to
/// store objects (as GRDB's `encode(to: inout PersistenceContainer)`): no `Encoder`, no
/// ``Document`` in between. The counterpart of ``RecordDecodable``.
///
/// ```swift
/// extension Message: RecordEncodable {
///     func encode(to record: inout RecordWriter) throws {
///         record.write(id, for: "id")
///         record.write(createdTS, for: "created_ts")
///     }
/// }
/// let messages = try await store.collection("Message", mapping: .record(idField: "id"), …)
/// ```
///
/// The bytes are exactly those ``RecordCodec/encode(_:)`` writes for the document with the same
/// fields, so records written either way read back the same way.
public protocol RecordEncodable {
    /// Writes the object's fields into `record`, in any order.
    /// - Throws: ``CodecError`` from ``RecordWriter/write(_:for:)-(Value?,_)``, or any error of the
    ///   type's own.
    func encode(to record: inout RecordWriter) throws
}

extension RecordEncodable {
    /// The record bytes of this object (``RecordCodec`` format).
    /// - Throws: ``CodecError`` `.corrupt` when two fields have the same name, or what
    ///   ``encode(to:)`` throws.
    public func recordBytes() throws -> [UInt8] {
        var writer = RecordWriter()
        try encode(to: &writer)
        return try writer.finish()
    }
}

/// Collects the fields of one record and writes them in the format's canonical order.
///
/// Each field's entry (name, tag, value) is appended to one buffer as it is written; ``finish()``
/// orders the entries by name bytes — which costs nothing when they were written in that order —
/// and puts the format byte and field count in front. A `nil` value writes no field, as
/// `encodeIfPresent` does for ``DocumentEncoder``.
public struct RecordWriter {
    /// Where each entry is in `buffer`: its name for ordering, then the entry's end.
    private struct Entry {
        var nameStart: Int
        var nameCount: Int
        var end: Int
    }

    private var buffer: [UInt8] = []
    private var entries: [Entry] = []
    private var inOrder = true
    /// Some name is not plain ASCII, so two names may differ in bytes and still be one field:
    /// Swift strings, and so ``Document`` keys, compare by canonical equivalence.
    private var hasNonASCIIName = false

    /// An empty record.
    public init() {
        buffer.reserveCapacity(256)
        entries.reserveCapacity(8)
    }

    /// Writes a string field.
    public mutating func write(_ value: String?, for name: String) {
        guard var text = value else { return }
        beginEntry(name)
        buffer.append(RecordCodec.Tag.string)
        text.withUTF8 { utf8 in
            buffer.appendVarint(utf8.count)
            buffer.append(contentsOf: utf8)
        }
        endEntry()
    }

    /// Writes a number field (stored as a double, as ``DocumentEncoder`` stores `Double`).
    public mutating func write(_ value: Double?, for name: String) {
        guard let number = value else { return }
        beginEntry(name)
        buffer.append(RecordCodec.Tag.double)
        buffer.appendLittleEndian(number.bitPattern)
        endEntry()
    }

    /// Writes an integer field, in the smallest width that holds it (the canonical form).
    public mutating func write(_ value: Int?, for name: String) {
        guard let number = value else { return }
        beginEntry(name)
        RecordCodec.appendValue(.int(Int64(number)), to: &buffer, depth: 1)
        endEntry()
    }

    /// Writes a Boolean field.
    public mutating func write(_ value: Bool?, for name: String) {
        guard let flag = value else { return }
        beginEntry(name)
        buffer.append(flag ? RecordCodec.Tag.true : RecordCodec.Tag.false)
        endEntry()
    }

    /// Writes any value: bytes, arrays, nested documents, or an explicit `null`.
    /// - Throws: ``CodecError`` `.tooDeep` when the value nests deeper than the format allows.
    public mutating func write(_ value: Value?, for name: String) throws(CodecError) {
        guard let value else { return }
        // The record itself is the first level.
        let depth = 1 + value.nestingDepth
        guard depth <= RecordCodec.maxDepth else {
            throw CodecError(.tooDeep, "field \(name) nests \(depth) levels; the limit is \(RecordCodec.maxDepth)", fieldPath: name)
        }
        beginEntry(name)
        RecordCodec.appendValue(value, to: &buffer, depth: 1)
        endEntry()
    }

    /// The record bytes: format byte, field count, then the entries ordered by name bytes.
    /// - Throws: ``CodecError`` `.corrupt` naming a field written twice.
    public consuming func finish() throws(CodecError) -> [UInt8] {
        if !inOrder { try sortEntries() }
        if hasNonASCIIName { try refuseEquivalentNames() }
        var record: [UInt8] = []
        record.reserveCapacity(buffer.count + 6)
        record.append(RecordCodec.formatVersion)
        record.appendVarint(entries.count)
        if inOrder {
            record.append(contentsOf: buffer)
        } else {
            for entry in entries {
                record.append(contentsOf: buffer[(entry.nameStart - Self.varintCount(entry.nameCount))..<entry.end])
            }
        }
        return record
    }

    private mutating func beginEntry(_ name: String) {
        var name = name
        name.withUTF8 { utf8 in
            buffer.appendVarint(utf8.count)
            let nameStart = buffer.count
            buffer.append(contentsOf: utf8)
            if !hasNonASCIIName { hasNonASCIIName = !utf8.allSatisfy { $0 < 0x80 } }
            if let last = entries.last, inOrder {
                inOrder = compareNames(last, nameStart: nameStart, nameCount: utf8.count) < 0
            }
            entries.append(Entry(nameStart: nameStart, nameCount: utf8.count, end: nameStart))
        }
    }

    private mutating func endEntry() {
        entries[entries.count - 1].end = buffer.count
    }

    /// Orders entries by name bytes, rejecting a name written twice.
    private mutating func sortEntries() throws(CodecError) {
        let ordered = buffer.withUnsafeBytes { bytes in
            entries.sorted { UTF8Order.compare(Self.name($0, in: bytes), Self.name($1, in: bytes)) < 0 }
        }
        entries = ordered
        let repeated = buffer.withUnsafeBytes { bytes in
            zip(entries, entries.dropFirst())
                .first { UTF8Order.compare(Self.name($0.0, in: bytes), Self.name($0.1, in: bytes)) == 0 }
                .map { String(decoding: Self.name($0.0, in: bytes), as: UTF8.self) }
        }
        if let name = repeated {
            throw CodecError(.corrupt, "field \(name) is written twice", fieldPath: name)
        }
    }

    /// Refuses two names a ``Document`` would take for one field (e.g. "é" as U+00E9 and as
    /// "e" + U+0301): ``RecordCodec/decode(_:)`` rejects such a record as corrupt.
    private func refuseEquivalentNames() throws(CodecError) {
        let names = buffer.withUnsafeBytes { bytes in
            entries.map { String(decoding: Self.name($0, in: bytes), as: UTF8.self) }
        }
        var seen = Set<String>()
        for name in names where !seen.insert(name).inserted {
            throw CodecError(.corrupt, "field \(name) is written twice (under two spellings)", fieldPath: name)
        }
    }

    /// Compares `entry`'s name with the name just appended at `nameStart`.
    private func compareNames(_ entry: Entry, nameStart: Int, nameCount: Int) -> Int {
        buffer.withUnsafeBytes { bytes in
            UTF8Order.compare(Self.name(entry, in: bytes),
                              UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameCount)]))
        }
    }

    private static func name(_ entry: Entry, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[entry.nameStart..<(entry.nameStart + entry.nameCount)])
    }

    private static func varintCount(_ value: Int) -> Int {
        var count = 1
        var rest = value >> 7
        while rest > 0 {
            count += 1
            rest >>= 7
        }
        return count
    }
}
