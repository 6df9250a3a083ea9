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
/// The bytes are exactly those `RecordCodec/encode(_:)` writes for the document with the same
/// fields, so records written either way read back the same way.
public protocol RecordEncodable {
    /// Writes the object's fields into `record`, in any order.
    /// - Throws: ``CodecError`` from ``RecordWriter/write(_:for:)-(Value?,_)``, or any error of the
    ///   type's own.
    func encode(to record: inout RecordWriter) throws
}

extension RecordEncodable {
    /// The record bytes of this object (`RecordCodec` format).
    /// - Throws: ``CodecError`` `.corrupt` when two fields have the same name, or what
    ///   ``encode(to:)`` throws.
    public func recordBytes() throws -> [UInt8] {
        try writtenRecord().bytes
    }

    /// The record bytes of this object, with what writing them told about its field names.
    @usableFromInline
    func writtenRecord() throws -> WrittenRecord {
        var writer = RecordWriter()
        try encode(to: &writer)
        return try writer.finishRecord()
    }
}

/// Record bytes as a ``RecordWriter`` wrote them (``ObjectMapping/encodeRecord``).
public struct WrittenRecord: Sendable {
    /// The record (`RecordCodec` format).
    public let bytes: [UInt8]
    /// Every field name is plain ASCII: a lookup by bytes finds the fields a ``Document`` (whose
    /// keys compare by canonical equivalence) finds by name.
    public let namesAreASCII: Bool
}

/// Collects the fields of one record and writes them in the format's canonical order.
///
/// Each field's entry (name, tag, value) is appended to one buffer as it is written; ``finish()``
/// orders the entries by name bytes — which costs nothing when they were written in that order —
/// and puts the format byte and field count in front. A `nil` value writes no field, as
/// `encodeIfPresent` does for ``DocumentEncoder``.
public struct RecordWriter {
    /// Where each entry is in `buffer`, and its name within it (for ordering).
    private struct Entry {
        var start: Int
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
        value.map { append(.string($0), for: name) }
    }

    /// Writes a number field (stored as a double, as ``DocumentEncoder`` stores `Double`).
    public mutating func write(_ value: Double?, for name: String) {
        value.map { append(.double($0), for: name) }
    }

    /// Writes an integer field, in the smallest width that holds it (the canonical form).
    public mutating func write(_ value: Int?, for name: String) {
        value.map { append(.int(Int64($0)), for: name) }
    }

    /// Writes a Boolean field.
    public mutating func write(_ value: Bool?, for name: String) {
        value.map { append(.bool($0), for: name) }
    }

    /// Writes any value: bytes, arrays, nested documents, or an explicit `null`.
    /// - Throws: ``CodecError`` `.tooDeep`, naming the field path, when the value nests deeper
    ///   than the format allows; the writer is then as it was before the call.
    public mutating func write(_ value: Value?, for name: String) throws(CodecError) {
        guard let value else { return }
        let (count, wasInOrder, hadNonASCIIName) = (buffer.count, inOrder, hasNonASCIIName)
        beginEntry(name)
        do throws(CodecError) {
            // The record itself is the first level.
            try RecordCodec.appendValue(value, to: &buffer, depth: 1)
        } catch {
            buffer.removeSubrange(count...)
            entries.removeLast()
            (inOrder, hasNonASCIIName) = (wasInOrder, hadNonASCIIName)
            throw error.inField(name)
        }
        entries[entries.count - 1].end = buffer.count
    }

    /// The record bytes: format byte, field count, then the entries ordered by name bytes.
    /// - Throws: ``CodecError`` `.corrupt` naming a field written twice.
    public consuming func finish() throws(CodecError) -> [UInt8] {
        try finishRecord().bytes
    }

    /// The record bytes, and whether every name is ASCII (known from writing them).
    consuming func finishRecord() throws(CodecError) -> WrittenRecord {
        if !inOrder { try sortEntries() }
        if hasNonASCIIName { try refuseEquivalentNames() }
        var record: [UInt8] = []
        record.reserveCapacity(buffer.count + 6)
        record.append(RecordCodec.formatVersion)
        record.appendVarint(entries.count)
        if inOrder {
            record.append(contentsOf: buffer)
        } else {
            for entry in entries { record.append(contentsOf: buffer[entry.start..<entry.end]) }
        }
        return WrittenRecord(bytes: record, namesAreASCII: !hasNonASCIIName)
    }

    /// Appends one entry — name, then the scalar value in ``RecordCodec``'s own encoding.
    private mutating func append(_ value: Value, for name: String) {
        beginEntry(name)
        RecordCodec.appendScalar(value, to: &buffer)
        entries[entries.count - 1].end = buffer.count
    }

    /// Appends an entry's name, and notes whether the names still come in order; the caller
    /// appends the value and sets the entry's end.
    private mutating func beginEntry(_ name: String) {
        let start = buffer.count
        var name = name
        name.withUTF8 { utf8 in
            buffer.appendVarint(utf8.count)
            let nameStart = buffer.count
            buffer.append(contentsOf: utf8)
            if !hasNonASCIIName { hasNonASCIIName = !utf8.allSatisfy { $0 < 0x80 } }
            if let last = entries.last, inOrder {
                inOrder = compareNames(last, nameStart: nameStart, nameCount: utf8.count) < 0
            }
            entries.append(Entry(start: start, nameStart: nameStart, nameCount: utf8.count, end: nameStart))
        }
    }

    /// Orders entries by name bytes, rejecting a name written twice.
    private mutating func sortEntries() throws(CodecError) {
        // A record has few fields: an insertion sort in place, which meets a repeated name as it
        // places it, costs less than sorting into a new array and then looking for repeats.
        var ordered = entries
        entries = []
        let repeated = buffer.withUnsafeBytes { bytes -> String? in
            for next in ordered.indices.dropFirst() {
                let entry = ordered[next]
                var position = next
                while position > 0 {
                    let order = UTF8Order.compare(
                        Self.name(ordered[position - 1], in: bytes), Self.name(entry, in: bytes))
                    if order == 0 { return String(decoding: Self.name(entry, in: bytes), as: UTF8.self) }
                    if order < 0 { break }
                    ordered[position] = ordered[position - 1]
                    position -= 1
                }
                ordered[position] = entry
            }
            return nil
        }
        entries = ordered
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
            UTF8Order.compare(
                Self.name(entry, in: bytes),
                UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + nameCount)]))
        }
    }

    private static func name(_ entry: Entry, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[entry.nameStart..<(entry.nameStart + entry.nameCount)])
    }

}
