/// A ``Condition`` prepared for checking stored records without decoding them: the answer of
/// ``Condition/matches(fieldValue:)`` on the record's field, read straight from the bytes.
///
/// Queries re-check every candidate record against every condition, most of which a record
/// fails (the other conditions of an index scan, a full scan's filter). Decoding the field into a
/// ``Value`` for that allocates a `String` for every string field compared; here a string is
/// compared as bytes where it lies (after the same UTF-8 check the decoder makes), a number with
/// the condition's number, and a Boolean is read into a scalar ``Value``, which allocates nothing.
/// Everything else — a null,
/// bytes, arrays and objects, a record the fast scan does not handle — goes through
/// ``RecordCodec/field(_:in:)-(_,UnsafeRawBufferPointer)`` and ``Condition/matches(fieldValue:)``,
/// so the answer, and any error for damaged bytes, is theirs.
///
/// ```swift
/// let predicate = RecordPredicate(Condition(field: "type", op: .equal, value: "video"))
/// let isVideo = try predicate.matches(record: recordBytes)
/// ```
package struct RecordPredicate: Sendable {
    /// The condition this checks.
    package let condition: Condition
    /// The top-level field's name bytes (unescaped), for a condition on a top-level field.
    let name: [UInt8]
    /// The name's first byte, or -1 for the empty name: most field names a record walk passes
    /// differ from it there, so one comparison orders them.
    let leadingByte: Int
    /// The name's first eight bytes (zero-padded) as a big-endian integer, so that a short name is
    /// ordered against a field's by one comparison.
    let namePrefix: UInt64
    /// Whether the condition names a nested path (``FieldPath``), read by
    /// ``RecordCodec/value(atPath:in:)-(_,UnsafeRawBufferPointer)`` instead of the one-pass scan.
    private let isPath: Bool
    /// The UTF-8 bytes of a string condition value compared by `==`, `!=`, `^=` or a range operator.
    let text: [UInt8]
    /// Whether ``text`` holds the condition's value (rather than standing empty for another kind).
    let hasText: Bool
    /// The number of bytes in ``text``.
    let textCount: Int
    /// The condition's value as one word, for the comparisons ``quickKind`` names.
    let quickValue: UInt64
    /// Which value ``quickValue`` holds, if any (``QuickKind``).
    let quickKind: UInt8
    /// The answer for a record without the field (`true` only for `exists false`).
    let matchesAbsent: Bool

    /// What ``quickValue`` holds: the value of a condition that a record's value is compared with
    /// in a step or two, without building a ``Value``.
    enum QuickKind {
        /// Nothing: the condition is answered the general way.
        static let none: UInt8 = 0
        /// ``text``, its first byte lowest, for `==` or `!=` on a string of 1 to 8 bytes
        /// (``shortTextAnswer(_:_:_:at:)``).
        static let shortText: UInt8 = 1
        /// An integer's bits, for `==`, `!=` or a range operator (``numberAnswer(_:_:_:at:)``).
        static let integer: UInt8 = 2
        /// A double's bits, for the same operators.
        static let double: UInt8 = 3
    }

    /// Prepares `condition`.
    package init(_ condition: Condition) {
        self.condition = condition
        let path = FieldPath.needsParsing(condition.field) ? try? FieldPath(parsing: condition.field) : nil
        isPath = (path?.components.count ?? 1) > 1
        name = Array((path?.components.count == 1 ? path!.components[0] : condition.field).utf8)
        leadingByte = name.first.map(Int.init) ?? -1
        namePrefix = name.prefix(8).enumerated().reduce(0) { word, byte in
            word | UInt64(byte.element) &<< UInt64(56 - 8 * byte.offset)
        }
        (text, hasText) = Self.text(of: condition)
        textCount = text.count
        (quickValue, quickKind) = Self.quick(condition, text: text, hasText: hasText)
        matchesAbsent = condition.matches(fieldValue: nil)
    }

    /// `template`'s predicate for the same field and operator with `value`: what
    /// `RecordPredicate(Condition(field:op:value:))` makes, without parsing the field again.
    package init(_ template: RecordPredicate, value: Value) {
        var condition = template.condition
        condition.value = value
        self.condition = condition
        (name, leadingByte, namePrefix, isPath) = (
            template.name, template.leadingByte, template.namePrefix, template.isPath
        )
        (text, hasText) = Self.text(of: condition)
        textCount = text.count
        (quickValue, quickKind) = Self.quick(condition, text: text, hasText: hasText)
        matchesAbsent = condition.matches(fieldValue: nil)
    }

    /// The UTF-8 bytes of a string value that ``text`` compares, and whether there is one.
    private static func text(of condition: Condition) -> (text: [UInt8], hasText: Bool) {
        switch (condition.op, condition.value) {
        case (.equal, .string(let value)), (.notEqual, .string(let value)), (.less, .string(let value)),
            (.lessOrEqual, .string(let value)), (.greater, .string(let value)), (.greaterOrEqual, .string(let value)),
            (.prefix, .string(let value)):
            // Copied from contiguous storage in one move rather than through the UTF-8 view's iterator.
            (value.utf8.withContiguousStorageIfAvailable { Array($0) } ?? Array(value.utf8), true)
        default:
            ([], false)
        }
    }

    /// The ``quickValue`` and ``quickKind`` of `condition`, whose string value's bytes are `text`
    /// when `hasText`.
    private static func quick(_ condition: Condition, text: [UInt8], hasText: Bool) -> (UInt64, UInt8) {
        switch (condition.op, condition.value) {
        case (.equal, .string), (.notEqual, .string):
            guard hasText, (1...8).contains(text.count) else { return (0, QuickKind.none) }
            let word = text.enumerated().reduce(0) { word, byte in
                word | UInt64(byte.element) &<< UInt64(8 * byte.offset)
            }
            return (word, QuickKind.shortText)
        case (.equal, .int(let value)), (.notEqual, .int(let value)), (.less, .int(let value)),
            (.lessOrEqual, .int(let value)), (.greater, .int(let value)), (.greaterOrEqual, .int(let value)):
            return (UInt64(bitPattern: value), QuickKind.integer)
        case (.equal, .double(let value)), (.notEqual, .double(let value)), (.less, .double(let value)),
            (.lessOrEqual, .double(let value)), (.greater, .double(let value)), (.greaterOrEqual, .double(let value)):
            return (value.bitPattern, QuickKind.double)
        default:
            return (0, QuickKind.none)
        }
    }

    /// The predicates of `conditions` in the order ``all(_:match:)`` needs: those on top-level
    /// fields by name bytes, the order of a record's fields, then those on nested paths.
    package static func ordered(_ conditions: [Condition]) -> [RecordPredicate] {
        let predicates = conditions.map(RecordPredicate.init)
        let byName = { (a: RecordPredicate, b: RecordPredicate) in
            a.name.withUnsafeBytes { x in b.name.withUnsafeBytes { y in UTF8Order.compare(x, y) < 0 } }
        }
        guard predicates.contains(where: { $0.isPath }) else {
            // A query's conditions are sorted by field already: most need no sort (and no copy).
            // Compared through a buffer: pairs from `zip` would copy (retain) both predicates.
            let inOrder = predicates.withUnsafeBufferPointer { buffer in
                buffer.indices.dropFirst().allSatisfy { position in
                    buffer[position - 1].name.withUnsafeBytes { x in
                        buffer[position].name.withUnsafeBytes { y in UTF8Order.compare(x, y) <= 0 }
                    }
                }
            }
            return inOrder ? predicates : predicates.sorted(by: byName)
        }
        return predicates.filter { !$0.isPath }.sorted(by: byName) + predicates.filter { $0.isPath }
    }

    /// Whether the record in `bytes` satisfies every predicate of `predicates`, which must be in
    /// ``ordered(_:)`` order (checked in debug builds): one pass over the record's fields
    /// (themselves sorted by name) serves them all, and stops at the first that fails.
    /// - Throws: ``CodecError`` when the bytes the general path reads are damaged.
    package static func all(_ predicates: [RecordPredicate], match bytes: UnsafeRawBufferPointer) throws(CodecError)
        -> Bool
    {
        try predicates.withUnsafeBufferPointer { predicates throws(CodecError) in try all(predicates, match: bytes) }
    }

    /// Whether the record in `bytes` satisfies every predicate of `predicates`, lent in place: see
    /// ``all(_:match:)-([RecordPredicate],_)``.
    /// - Throws: ``CodecError`` when the bytes the general path reads are damaged.
    package static func all(_ predicates: UnsafeBufferPointer<RecordPredicate>, match bytes: UnsafeRawBufferPointer)
        throws(CodecError) -> Bool
    {
        // Paths come last (``ordered(_:)``): the pass over top-level fields serves the others.
        // Borrowed through the buffer, `predicates[index]` copies no predicate (a condition, its
        // value, two arrays), which an array subscript did for every field compared.
        var end = predicates.count
        while end > 0 && predicates[end - 1].isPath { end -= 1 }
        assert(
            zip(predicates[..<end], predicates[..<end].dropFirst()).allSatisfy { a, b in
                a.name.withUnsafeBytes { x in b.name.withUnsafeBytes { y in UTF8Order.compare(x, y) <= 0 } }
            } && predicates[end...].allSatisfy(\.isPath), "RecordPredicate.all needs predicates in ordered(_:) order")
        for index in end..<predicates.count where try !predicates[index].matches(record: bytes) { return false }
        guard end > 0 else { return true }
        if let walked = try walk(predicates.baseAddress.unsafelyUnwrapped, end, bytes) { return walked }
        for index in 0..<end where try !predicates[index].matches(record: bytes) { return false }
        return true
    }

    /// The condition on the field as ``RecordCodec`` decodes it.
    func generalAnswer(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> Bool {
        condition.matches(fieldValue: try RecordCodec.value(atPath: condition.field, in: bytes))
    }

    /// Whether the record in `bytes` satisfies the condition (a record without the field never
    /// does).
    /// - Throws: ``CodecError`` when the bytes the general path reads are damaged.
    package func matches(record bytes: UnsafeRawBufferPointer) throws(CodecError) -> Bool {
        if isPath { return try generalAnswer(bytes) }
        let lookup = name.withUnsafeBytes { RecordScan.field($0, in: bytes) }
        switch lookup {
        case .absent:
            return matchesAbsent
        case .found(let offset):
            let answer = withUnsafePointer(to: self) { Self.answerFromBytes($0, bytes, at: offset) }
            if let answer { return answer }
        case .general:
            break
        }
        return try generalAnswer(bytes)
    }

    /// The answer for the value whose tag is at `offset`, or `nil` when the general path must
    /// decide.
    @inline(__always)
    static func answerFromBytes(
        _ predicate: UnsafePointer<RecordPredicate>, _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) -> Bool? {
        // A name at the very end of damaged bytes has no tag after it: the general path reports it.
        guard offset >= 0, offset < bytes.count else { return nil }
        // Present, whatever the value: a damaged value is the decoder's to report.
        if predicate.pointee.condition.op == .exists { return nil }
        switch bytes[offset] {
        case RecordCodec.Tag.double:
            return RecordScan.double(bytes, at: offset).map {
                predicate.pointee.condition.matches(fieldValue: .double($0))
            }
        case RecordCodec.Tag.int8, RecordCodec.Tag.int16, RecordCodec.Tag.int32, RecordCodec.Tag.int64:
            return RecordScan.int(bytes, at: offset).map { predicate.pointee.condition.matches(fieldValue: .int($0)) }
        case RecordCodec.Tag.true:
            return predicate.pointee.condition.matches(fieldValue: .bool(true))
        case RecordCodec.Tag.false:
            return predicate.pointee.condition.matches(fieldValue: .bool(false))
        case RecordCodec.Tag.string:
            return predicate.pointee.hasText ? answerForText(predicate, bytes, at: offset) : nil
        default:
            return nil
        }
    }
}
