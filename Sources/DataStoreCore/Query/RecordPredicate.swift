/// A ``Condition`` prepared for checking stored records without decoding them: the answer of
/// ``Condition/matches(fieldValue:)`` on the record's field, read straight from the bytes.
///
/// Queries re-check every candidate record against every condition, most of which a record
/// fails (the other conditions of an index scan, a full scan's filter). Decoding the field into a
/// ``Value`` for that allocates a `String` for every string field compared; here a string is
/// compared as bytes where it lies (after the same UTF-8 check the decoder makes) and a number or
/// a Boolean is read into a scalar ``Value``, which allocates nothing. Everything else — a null,
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
    private let name: [UInt8]
    /// The name's first byte, or -1 for the empty name: most field names a record walk passes
    /// differ from it there, so one comparison orders them.
    private let leadingByte: Int
    /// Whether the condition names a nested path (``FieldPath``), read by
    /// ``RecordCodec/value(atPath:in:)-(_,UnsafeRawBufferPointer)`` instead of the one-pass scan.
    private let isPath: Bool
    /// The UTF-8 bytes of a string condition value compared by `==`, `!=`, `^=` or a range operator.
    private let text: [UInt8]?
    /// The answer for a record without the field (`true` only for `exists false`).
    private let matchesAbsent: Bool

    /// Prepares `condition`.
    package init(_ condition: Condition) {
        self.condition = condition
        let path = FieldPath.needsParsing(condition.field) ? try? FieldPath(parsing: condition.field) : nil
        isPath = (path?.components.count ?? 1) > 1
        name = Array((path?.components.count == 1 ? path!.components[0] : condition.field).utf8)
        leadingByte = name.first.map(Int.init) ?? -1
        switch (condition.op, condition.value) {
        case (.equal, .string(let value)), (.notEqual, .string(let value)), (.less, .string(let value)),
            (.lessOrEqual, .string(let value)), (.greater, .string(let value)), (.greaterOrEqual, .string(let value)),
            (.prefix, .string(let value)):
            text = Array(value.utf8)
        default:
            text = nil
        }
        matchesAbsent = condition.matches(fieldValue: nil)
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
        // Paths come last (``ordered(_:)``): the pass over top-level fields serves the others.
        // Through a buffer pointer, so that reading `isPath` copies no predicate (see below).
        let end = predicates.withUnsafeBufferPointer { predicates in
            var end = predicates.count
            while end > 0 && predicates[end - 1].isPath { end -= 1 }
            return end
        }
        assert(
            zip(predicates[..<end], predicates[..<end].dropFirst()).allSatisfy { a, b in
                a.name.withUnsafeBytes { x in b.name.withUnsafeBytes { y in UTF8Order.compare(x, y) <= 0 } }
            } && predicates[end...].allSatisfy(\.isPath), "RecordPredicate.all needs predicates in ordered(_:) order")
        if end < predicates.count {
            for predicate in predicates[end...] where try !predicate.matches(record: bytes) { return false }
        }
        func oneByOne() throws(CodecError) -> Bool {
            for predicate in predicates[..<end] where try !predicate.matches(record: bytes) { return false }
            return true
        }
        guard end > 0 else { return true }
        guard let (start, count) = RecordScan.entries(ofRecord: bytes) else { return try oneByOne() }
        // Through a buffer pointer, `predicates[next]` is borrowed in place; an array subscript
        // copied the whole predicate (a condition, its value, two arrays) for every field compared,
        // which was a sixth of an index scan's time. `nil`: damaged or unusual bytes, for `oneByOne`.
        let walked = try predicates.withUnsafeBufferPointer { predicates throws(CodecError) -> Bool? in
            let base = bytes.baseAddress.unsafelyUnwrapped
            var offset = start
            var next = 0
            for _ in 0..<count {
                let length = RecordScan.varint(bytes, &offset)
                guard length >= 0, length <= bytes.count - offset else { return nil }
                let field = base + offset
                offset += length
                while next < end {
                    let order = predicates[next].order(against: field, length)
                    if order > 0 { break }
                    // A predicate whose field sorts before this one has no field.
                    guard order == 0 else {
                        guard predicates[next].matchesAbsent else { return false }
                        next += 1
                        continue
                    }
                    if let holds = answerFromBytes(predicates.baseAddress.unsafelyUnwrapped + next, bytes, at: offset) {
                        guard holds else { return false }
                    } else {
                        guard try predicates[next].generalAnswer(bytes) else { return false }
                    }
                    next += 1
                }
                if next == end { return true }
                guard RecordScan.skipValue(bytes, &offset) else { return nil }
            }
            // The fields ran out before the predicates: those left have no field, if the record is whole.
            guard offset == bytes.count else { return nil }
            return predicates[next..<end].allSatisfy(\.matchesAbsent)
        }
        if let walked { return walked }
        return try oneByOne()
    }

    /// Returns -1, 0 or 1 as this predicate's name sorts before, equal to or after the `length`
    /// name bytes at `field` (``UTF8Order`` order).
    @inline(__always)
    private func order(against field: UnsafeRawPointer, _ length: Int) -> Int {
        let fieldLeading = length == 0 ? -1 : Int(field.load(as: UInt8.self))
        if leadingByte != fieldLeading { return leadingByte < fieldLeading ? -1 : 1 }
        return name.withUnsafeBytes { UTF8Order.compare($0, UnsafeRawBufferPointer(start: field, count: length)) }
    }

    /// The condition on the field as ``RecordCodec`` decodes it.
    private func generalAnswer(_ bytes: UnsafeRawBufferPointer) throws(CodecError) -> Bool {
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
    private static func answerFromBytes(
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
            guard let text = predicate.pointee.text,
                let payload = RecordScan.payload(bytes, at: offset, tag: RecordCodec.Tag.string)
            else { return nil }
            guard UTF8Validation.validate(payload) != nil else { return nil }
            let order = text.withUnsafeBytes { UTF8Order.compare(payload, $0) }
            switch predicate.pointee.condition.op {
            case .equal: return order == 0
            case .notEqual: return order != 0
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            case .greaterOrEqual: return order >= 0
            case .prefix: return text.withUnsafeBytes { payload.starts(with: $0) }
            case .in, .notIn, .exists: return nil
            }
        default:
            return nil
        }
    }
}
