/// Decodes `Decodable` values directly from record bytes, without building a ``Document``.
///
/// This is the store's hot path: a field is found by scanning the record's sorted names and
/// skipping values by their lengths, and only the values the type asks for are decoded.
/// It accepts exactly what ``DocumentDecoder`` accepts for the same document.
///
/// Unlike `RecordCodec/decode(_:)-(UnsafeRawBufferPointer)`, it validates only the bytes it
/// reads (every read is bounds-checked, so damaged bytes throw, never crash); fields the type
/// does not ask for are not inspected.
///
/// ```swift
/// let message = try RecordDecoder().decode(Message.self, from: recordBytes)
/// ```
public struct RecordDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes a `T` from a record.
    ///
    /// The decoder and containers `T.init(from:)` is given are valid only during this call: each
    /// thread reuses its top-level decoder for the next record it decodes.
    ///
    /// - Parameters:
    ///   - type: The type to decode; it must decode from a keyed container.
    ///   - bytes: A record written by `RecordCodec/encode(_:)`. The bytes are only read
    ///     during the call.
    /// - Throws: `DecodingError` as ``DocumentDecoder`` does; damaged bytes are reported as
    ///   `dataCorrupted` with the ``CodecError`` as the underlying error.
    /// - Complexity: O(*f* + *n*): the record's field names, plus the values decoded.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let slot = ThreadRecordDecoder.slot()
        guard !slot.isInUse else {
            return try SourceDecoder(
                source: DecodingSource(bytes: bytes), position: .record(RecordSource.root), codingPath: []
            ).unboxSelf(type)
        }
        slot.isInUse = true
        defer { slot.isInUse = false }
        slot.decoder.restart(on: bytes)
        return try slot.decoder.unboxSelf(type)
    }

    /// Decodes a `T` from a record held in an array.
    ///
    /// - Throws: See ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    /// - Complexity: See ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0) }
    }
}

/// Record bytes read in place for ``DecodingSource``: a position is the offset of a value's tag,
/// or ``root`` for the record itself (which has no tag).
struct RecordSource {
    let bytes: UnsafeRawBufferPointer

    static let root = -1

    /// An object's fields, indexed once when its container is opened so that each lookup
    /// compares names only, without re-skipping the values in between.
    struct Object {
        /// Each field's name bytes, in record order; its value's tag follows the name.
        let table: FieldTable
        /// Whether the names are strictly ascending (always, in a record `decode` accepts), so a
        /// large object can be binary searched. Only checked for objects above
        /// ``linearSearchLimit`` fields.
        let isSorted: Bool

        /// The number of fields.
        var count: Int { table.count }

        /// Field `index`.
        func field(_ index: Int) -> Field { table.field(index) }

        /// The offset of field `name`'s value in `record`, or `nil`.
        @inline(__always)
        func lookup(_ name: String, in record: RecordSource) -> Int? {
            var name = name
            return name.withUTF8 { target in record.lookup(UnsafeRawBufferPointer(target), in: self) }
        }
    }

    /// The (name offset, name length) pairs of an object's fields, in one allocation.
    ///
    /// A non-generic subclass of `ManagedBuffer` has static metadata: unlike `[Int]`, whose
    /// storage class is generic, making one costs no runtime metadata lookup, which would cost
    /// more than indexing the fields.
    final class FieldTable: ManagedBuffer<FieldTableHeader, Int> {
        /// A table with room for `capacity` fields and none used.
        static func make(capacity: Int) -> FieldTable {
            let slots = 2 * Swift.max(capacity, 1)
            return unsafeDowncast(
                FieldTable.create(minimumCapacity: slots) { _ in FieldTableHeader(used: 0, slots: slots) },
                to: FieldTable.self)
        }

        /// The number of fields.
        var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.used } / 2 }

        /// Field `index`, which must be below ``count``.
        func field(_ index: Int) -> Field {
            precondition(index >= 0 && index < count)
            return withUnsafeMutablePointerToElements { Field(name: $0[2 * index], length: $0[2 * index + 1]) }
        }

        /// Appends a field; the caller checks ``isFull`` first.
        @inline(__always)
        func append(name: Int, length: Int) {
            withUnsafeMutablePointers { header, elements in
                let used = header.pointee.used
                precondition(used + 2 <= header.pointee.slots)
                elements[used] = name
                elements[used + 1] = length
                header.pointee.used = used + 2
            }
        }

        /// Whether another field would not fit.
        @inline(__always)
        var isFull: Bool { withUnsafeMutablePointerToHeader { $0.pointee.used + 2 > $0.pointee.slots } }

        /// A table with the same fields and room for `extra` more.
        func grown(by extra: Int) -> FieldTable {
            let copy = FieldTable.make(capacity: count + extra)
            for index in 0..<count {
                let field = field(index)
                copy.append(name: field.name, length: field.length)
            }
            return copy
        }

        /// Calls `body` with the pairs in use, as a flat buffer.
        @inline(__always)
        func withPairs<R>(_ body: (UnsafeBufferPointer<Int>) -> R) -> R {
            withUnsafeMutablePointers { header, elements in
                body(UnsafeBufferPointer(start: elements, count: header.pointee.used))
            }
        }
    }

    /// ``FieldTable``'s header: the `Int` slots in use (two per field) and allocated.
    struct FieldTableHeader {
        var used: Int
        let slots: Int
    }

    /// Where one field's name is. Its value's tag is at `name + length`.
    struct Field {
        let name: Int
        let length: Int
    }

    /// Objects up to this many fields are searched linearly, comparing lengths first: cheaper
    /// than a binary search's full name comparisons at this size.
    static let linearSearchLimit = 16

    /// Reads the `count` entries in `entries..<end` into an ``Object``.
    ///
    /// The entries fill the range; `declared` (the record's count) only sizes the table, bounded
    /// by the bytes (every entry takes at least 2), so a hostile count cannot over-allocate.
    private func index(count declared: Int, from entries: Int, to end: Int) throws(CodecError) -> Object {
        var table = FieldTable.make(capacity: Swift.min(declared, (end - entries) / 2))
        var reader = ByteReader(bytes, offset: entries, end: end)
        while !reader.isAtEnd {
            let length = try reader.readVarint()
            try reader.require(length, "field name")
            if table.isFull {
                // More entries than the count said (a damaged record): make room for the rest.
                table = table.grown(by: Swift.max(reader.remaining / 2, 1))
            }
            table.append(name: reader.offset, length: length)
            reader.offset += length
            try RecordCodec.skipValue(&reader)
        }
        var isSorted = true
        if table.count > Self.linearSearchLimit {
            for index in 1..<table.count where isSorted {
                let previous = table.field(index - 1), field = table.field(index)
                isSorted =
                    UTF8Order.compare(
                        UnsafeRawBufferPointer(rebasing: bytes[previous.name..<(previous.name + previous.length)]),
                        UnsafeRawBufferPointer(rebasing: bytes[field.name..<(field.name + field.length)])) < 0
            }
        }
        return Object(table: table, isSorted: isSorted)
    }

    func typeName(at position: Int) throws(CodecError) -> String {
        if position == Self.root { return "object" }
        var reader = ByteReader(bytes, offset: position)
        switch try reader.readUInt8("a value tag") {
        case RecordCodec.Tag.array: return "array"
        case RecordCodec.Tag.object: return "object"
        default:
            reader.offset = position
            return try RecordCodec.readValue(&reader, depth: 1).typeName
        }
    }

    /// Whether the value at `position` is an array or an object (the root is an object). A
    /// position past the end is not: reading it as a scalar reports the truncation.
    @inline(__always)
    func isContainer(at position: Int) -> Bool {
        if position == Self.root { return true }
        guard position >= 0 && position < bytes.count else { return false }
        let tag = bytes[position]
        return tag == RecordCodec.Tag.array || tag == RecordCodec.Tag.object
    }

    /// Whether the value at `position` is an object (the root is one).
    @inline(__always)
    func isObject(at position: Int) -> Bool {
        position == Self.root || (position >= 0 && position < bytes.count && bytes[position] == RecordCodec.Tag.object)
    }

    func scalar(at position: Int) throws(CodecError) -> Value? {
        if position == Self.root { return nil }
        var reader = ByteReader(bytes, offset: position)
        let tag = try reader.readUInt8("a value tag")
        switch tag {
        case RecordCodec.Tag.null: return .null
        case RecordCodec.Tag.false: return .bool(false)
        case RecordCodec.Tag.true: return .bool(true)
        case RecordCodec.Tag.array, RecordCodec.Tag.object: return nil
        default: return try RecordCodec.readScalar(tag: tag, &reader, tagOffset: position)
        }
    }

    // MARK: Direct reads
    //
    // Each returns the value when the tag is of the kind asked for, and `nil` otherwise; the
    // caller then takes the general path through ``scalar(at:)``, which converts or reports the
    // mismatch. No `Value` is built on the way.

    /// The tag at `position`, or `nil` for the root or past the end.
    @inline(__always)
    private func tag(at position: Int) -> UInt8? {
        position >= 0 && position < bytes.count ? bytes[position] : nil
    }

    /// The string at `position`, validated, if the value is a string.
    @inline(__always)
    func string(at position: Int) throws(CodecError) -> String? {
        guard tag(at: position) == RecordCodec.Tag.string else { return nil }
        var reader = ByteReader(bytes, offset: position + 1)
        let length = try reader.readVarint()
        return try RecordCodec.makeString(try reader.readBytes(length, "string"), offset: position)
    }

    /// The Boolean at `position`, if the value is one.
    @inline(__always)
    func bool(at position: Int) -> Bool? {
        switch tag(at: position) {
        case RecordCodec.Tag.true: true
        case RecordCodec.Tag.false: false
        default: nil
        }
    }

    /// The number at `position`, if the value is one (integers checked for their canonical width).
    @inline(__always)
    func number(at position: Int) throws(CodecError) -> Number? {
        guard let tag = tag(at: position) else { return nil }
        var reader = ByteReader(bytes, offset: position + 1)
        switch tag {
        case RecordCodec.Tag.double:
            return .double(Double(bitPattern: try reader.readLittleEndian(UInt64.self)))
        case RecordCodec.Tag.int8...RecordCodec.Tag.int64:
            return .int(try RecordCodec.readInteger(tag: tag, &reader, tagOffset: position))
        default:
            return nil
        }
    }

    /// A number read in place: no reference counting, unlike ``Value``.
    enum Number {
        case int(Int64)
        case double(Double)
    }

    func object(at position: Int) throws(CodecError) -> Object? {
        if position == Self.root {
            var reader = try RecordCodec.openRecord(bytes)
            let count = try reader.readVarint() // the entries fill the rest of the record
            return try index(count: count, from: reader.offset, to: bytes.count)
        }
        var reader = ByteReader(bytes, offset: position)
        guard try reader.readUInt8("a value tag") == RecordCodec.Tag.object else { return nil }
        let length = try reader.readVarint()
        try reader.require(length, "object body")
        let end = reader.offset + length
        let count = try reader.readVarint()
        return try index(count: count, from: reader.offset, to: end)
    }

    /// The offset of field `name`'s value, or `nil`.
    @inline(__always)
    func lookup(_ name: String, in object: Object) -> Int? {
        object.lookup(name, in: self)
    }

    /// The offset of the value of the field named `target` (UTF-8 bytes), or `nil`.
    ///
    /// - Complexity: O(*f*) comparisons of lengths for up to ``linearSearchLimit`` fields,
    ///   O(log *f*) name comparisons above (when the names are sorted, as in any valid record).
    func lookup(_ target: UnsafeRawBufferPointer, in object: Object) -> Int? {
        let bytes = bytes
        return object.table.withPairs { table -> Int? in
            let length = target.count
            let count = table.count / 2
            if count <= Self.linearSearchLimit || !object.isSorted {
                var index = 0
                while index + 1 < table.count {
                    if table[index + 1] == length {
                        let name = table[index]
                        if UTF8Order.equal(UnsafeRawBufferPointer(rebasing: bytes[name..<(name + length)]), target) {
                            return name + length
                        }
                    }
                    index += 2
                }
                return nil
            }
            var low = 0, high = count
            while low < high {
                let middle = low + (high - low) / 2
                let name = table[2 * middle], nameLength = table[2 * middle + 1]
                let order = UTF8Order.compare(
                    UnsafeRawBufferPointer(rebasing: bytes[name..<(name + nameLength)]), target)
                if order == 0 { return name + nameLength }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    func names(in object: Object) throws(CodecError) -> [String] {
        var names: [String] = []
        for index in 0..<object.count {
            let field = object.field(index)
            names.append(
                try RecordCodec.makeString(
                    UnsafeRawBufferPointer(rebasing: bytes[field.name..<(field.name + field.length)]),
                    offset: field.name))
        }
        return names
    }

    func elements(at position: Int) throws(CodecError) -> [Int]? {
        if position == Self.root { return nil }
        var reader = ByteReader(bytes, offset: position)
        guard try reader.readUInt8("a value tag") == RecordCodec.Tag.array else { return nil }
        let length = try reader.readVarint()
        try reader.require(length, "array body")
        var body = ByteReader(bytes, offset: reader.offset, end: reader.offset + length)
        let count = try body.readVarint()
        guard count <= body.remaining else {
            throw CodecError(.truncated, "\(count) elements cannot fit in \(body.remaining) bytes", offset: position)
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for _ in 0..<count {
            offsets.append(body.offset)
            try RecordCodec.skipValue(&body)
        }
        return offsets
    }
}
