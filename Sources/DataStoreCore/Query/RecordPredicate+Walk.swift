extension RecordPredicate {
    /// Checks the top-level predicates `predicates[0..<end]`, in ``ordered(_:)`` order, in one pass
    /// over the record's fields (themselves sorted by name), stopping at the first that fails.
    ///
    /// - Returns: The answer, or `nil` for bytes the pass does not handle (damaged or unusual),
    ///   which the caller then checks one predicate at a time to report their error.
    /// - Throws: ``CodecError`` when the general path a predicate needs finds the bytes damaged.
    /// - Complexity: O(fields up to the last predicate's name); a field passed costs its name's
    ///   first byte (the whole name when that byte is the predicate's) and its value's tag and length.
    @inline(__always)
    static func walk(
        _ predicates: UnsafePointer<RecordPredicate>, _ end: Int, _ bytes: UnsafeRawBufferPointer
    ) throws(CodecError) -> Bool? {
        guard let (start, count) = RecordScan.entries(ofRecord: bytes) else { return nil }
        let base = bytes.baseAddress.unsafelyUnwrapped
        let size = bytes.count
        var offset = start
        var next = 0
        // The next predicate's first name byte, kept in a register: most fields passed differ there.
        var leading = predicates[0].leadingByte
        var remaining = count
        // Offsets stay within `size` and lengths below 2^32, so the arithmetic cannot overflow.
        while remaining > 0 {
            passFields(before: leading, base, size, &offset, &remaining)
            if remaining == 0 { break }
            remaining &-= 1
            let length = RecordScan.varint(bytes, &offset)
            guard length >= 0, length <= size &- offset else { return nil }
            let field = base + offset
            let available = size &- offset
            offset &+= length
            let fieldLeading = length == 0 ? -1 : Int(field.load(as: UInt8.self))
            while leading <= fieldLeading {
                let order =
                    leading < fieldLeading ? -1 : predicates[next].compareName(field, length, available: available)
                if order > 0 { break }
                // A predicate whose name sorts before this field's has no field in the record.
                let holds: Bool
                if order < 0 {
                    holds = predicates[next].matchesAbsent
                } else if let quick = shortTextAnswer(predicates + next, base, size, at: offset) {
                    holds = quick
                } else {
                    holds = try answer(predicates + next, bytes, at: offset)
                }
                guard holds else { return false }
                next &+= 1
                if next == end { return true }
                leading = predicates[next].leadingByte
            }
            guard skipValue(base, &offset, size) else { return nil }
        }
        // The fields ran out before the predicates: those left have no field, if the record is whole.
        guard offset == size else { return nil }
        for index in next..<end where !predicates[index].matchesAbsent { return false }
        return true
    }

    /// Moves `offset` past the fields whose names' first byte sorts before `leading`, counting
    /// each off `remaining`, and stops at the first other field or the first it does not pass in
    /// one step: a name of no or more than 127 bytes, a value whose length takes more than one byte,
    /// damage. The walk's general step then takes that field.
    ///
    /// A walk passes most fields here: kept apart from the predicates' state, the loop keeps its
    /// few values in registers.
    @inline(__always)
    private static func passFields(
        before leading: Int, _ base: UnsafeRawPointer, _ size: Int, _ offset: inout Int, _ remaining: inout Int
    ) {
        var at = offset
        var left = remaining
        while left > 0, size &- at >= 2 {
            let nameLength = Int(base.load(fromByteOffset: at, as: UInt8.self))
            guard UInt(bitPattern: nameLength &- 1) < 0x7F,
                Int(base.load(fromByteOffset: at &+ 1, as: UInt8.self)) < leading
            else { break }
            var value = at &+ 1 &+ nameLength
            guard value < size else { break }
            let tag = base.load(fromByteOffset: value, as: UInt8.self)
            value &+= 1
            let skip: Int
            if tag <= RecordCodec.Tag.double {
                skip = Int(truncatingIfNeeded: fixedSizes &>> (UInt64(tag) &* 4)) & 0xF
                guard skip != 0xF else { break }
            } else {
                guard tag <= RecordCodec.Tag.object, value < size else { break }
                skip = Int(base.load(fromByteOffset: value, as: UInt8.self))
                guard skip < 0x80 else { break }
                value &+= 1
            }
            guard skip <= size &- value else { break }
            at = value &+ skip
            left &-= 1
        }
        offset = at
        remaining = left
    }

    /// Returns -1, 0 or 1 as this predicate's name sorts before, equal to or after the `length`
    /// name bytes at `field`, which has `available` readable bytes from its start (``UTF8Order`` order).
    @inline(__always)
    func compareName(_ field: UnsafeRawPointer, _ length: Int, available: Int) -> Int {
        let common = Swift.min(name.count, length)
        guard common < 8, available >= 8 else {
            return name.withUnsafeBytes { UTF8Order.compare($0, UnsafeRawBufferPointer(start: field, count: length)) }
        }
        // Both names' first `common` bytes, compared as one big-endian word.
        let mask: UInt64 = common == 0 ? 0 : ~0 &<< UInt64(64 &- 8 &* common)
        let fieldPrefix = UInt64(bigEndian: field.loadUnaligned(as: UInt64.self)) & mask
        let prefix = namePrefix & mask
        if prefix != fieldPrefix { return prefix < fieldPrefix ? -1 : 1 }
        return name.count == length ? 0 : (name.count < length ? -1 : 1)
    }

    /// Whether the predicate holds for the value whose tag is at `offset`: read from the bytes
    /// where it can be, otherwise through the general path.
    /// - Throws: ``CodecError`` when the general path finds the bytes damaged.
    @inline(never)
    static func answer(
        _ predicate: UnsafePointer<RecordPredicate>, _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) throws(CodecError) -> Bool {
        if let holds = numberAnswer(predicate, bytes.baseAddress.unsafelyUnwrapped, bytes.count, at: offset) {
            return holds
        }
        if predicate.pointee.hasText, offset < bytes.count, bytes[offset] == RecordCodec.Tag.string,
            let holds = answerForText(predicate, bytes, at: offset)
        {
            return holds
        }
        if let holds = answerFromBytes(predicate, bytes, at: offset) { return holds }
        return try predicate.pointee.generalAnswer(bytes)
    }

    /// The payload size of each fixed-size tag from `null` (0x01) to `double` (0x08), four bits a
    /// tag from bit 4; the reserved tag 0x00 reads as 0xF, which no payload has.
    private static let fixedSizes: UInt64 = 0x8_8421_000F

    /// Moves `offset` past the tagged value there, within the `size` bytes at `base`; `false` if it
    /// does not fit or its tag is reserved. Payloads are not inspected.
    @inline(__always)
    private static func skipValue(_ base: UnsafeRawPointer, _ offset: inout Int, _ size: Int) -> Bool {
        guard offset < size else { return false }
        let tag = base.load(fromByteOffset: offset, as: UInt8.self)
        offset &+= 1
        let skip: Int
        if tag <= RecordCodec.Tag.double {
            // One shift instead of a branch per tag: the fixed sizes are one table in a register.
            skip = Int(truncatingIfNeeded: fixedSizes &>> (UInt64(tag) &* 4)) & 0xF
            guard skip != 0xF else { return false }
        } else {
            guard tag <= RecordCodec.Tag.object, offset < size else { return false }
            let first = Int(base.load(fromByteOffset: offset, as: UInt8.self))
            if first < 0x80 {
                offset &+= 1
                skip = first
            } else {
                skip = RecordScan.varint(UnsafeRawBufferPointer(start: base, count: size), &offset)
                guard skip >= 0 else { return false }
            }
        }
        guard skip <= size &- offset else { return false }
        offset &+= skip
        return true
    }
}

extension RecordPredicate {
    /// Whether `payload`, a string's bytes inside the record `bytes`, is valid UTF-8.
    ///
    /// A short payload is checked for ASCII with one 8-byte load ending where it ends, which the
    /// record's bytes in front of it make safe; anything else is validated in full.
    @inline(__always)
    static func isValidText(_ payload: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) -> Bool {
        let count = payload.count
        guard count > 0 else { return true }
        let end = payload.baseAddress.unsafelyUnwrapped + count
        let recordStart = bytes.baseAddress.unsafelyUnwrapped
        if count <= 8, end - recordStart >= 8 {
            let word = UInt64(littleEndian: (end - 8).loadUnaligned(as: UInt64.self))
            // Little-endian: the payload's bytes are the word's last (most significant) `count`.
            if (word &>> UInt64((8 - count) * 8)) & 0x8080_8080_8080_8080 == 0 { return true }
        }
        return UTF8Validation.validate(payload) != nil
    }
}

extension RecordPredicate {
    /// The answer of an `==` or `!=` on a string of 1 to 8 bytes (``QuickKind/shortText``) for an
    /// ASCII string of at most 8 bytes whose tag is at `offset` in the `size` record bytes at
    /// `base`, read as one word; `nil` for anything else, which ``answer(_:_:at:)`` then takes.
    ///
    /// Equal words mean equal strings; an ASCII string is valid UTF-8, as the decoder would check.
    @inline(__always)
    static func shortTextAnswer(
        _ predicate: UnsafePointer<RecordPredicate>, _ base: UnsafeRawPointer, _ size: Int, at offset: Int
    ) -> Bool? {
        guard predicate.pointee.quickKind == QuickKind.shortText, size &- offset >= 2,
            base.load(fromByteOffset: offset, as: UInt8.self) == RecordCodec.Tag.string
        else { return nil }
        let length = Int(base.load(fromByteOffset: offset &+ 1, as: UInt8.self))
        let end = offset &+ 2 &+ length
        // The word ends where the payload does, so the record's bytes in front of it make it safe.
        guard length <= 8, end <= size, end >= 8 else { return nil }
        let word = UInt64(littleEndian: (base + (end &- 8)).loadUnaligned(as: UInt64.self))
        let payload = length == 0 ? 0 : word &>> UInt64(64 &- 8 &* length)
        guard payload & 0x8080_8080_8080_8080 == 0 else { return nil }
        let equal = length == predicate.pointee.textCount && payload == predicate.pointee.quickValue
        return equal == (predicate.pointee.condition.op == .equal)
    }

    /// The answer of a condition on a number (``QuickKind/integer``, ``QuickKind/double``) for the
    /// double or integer whose tag is at `offset` in the `size` record bytes at `base`, compared as
    /// ``Condition/matches(fieldValue:)`` compares numbers (exactly across integers and doubles, NaN
    /// below every number); `nil` for any other value, which ``answer(_:_:at:)`` then takes.
    @inline(__always)
    static func numberAnswer(
        _ predicate: UnsafePointer<RecordPredicate>, _ base: UnsafeRawPointer, _ size: Int, at offset: Int
    ) -> Bool? {
        let kind = predicate.pointee.quickKind
        guard kind >= QuickKind.integer else { return nil }
        let isDouble = kind == QuickKind.double
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        let bits = predicate.pointee.quickValue
        let order: Int
        if let value = RecordScan.double(bytes, at: offset) {
            order =
                isDouble
                ? NumberOrder.compare(value, Double(bitPattern: bits))
                : -NumberOrder.compare(Int64(bitPattern: bits), value)
        } else if let value = RecordScan.int(bytes, at: offset) {
            let target = Int64(bitPattern: bits)
            order =
                isDouble
                ? NumberOrder.compare(value, Double(bitPattern: bits))
                : (value == target ? 0 : (value < target ? -1 : 1))
        } else {
            return nil
        }
        switch predicate.pointee.condition.op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        case .in, .notIn, .prefix, .exists: return nil
        }
    }

    /// The answer of a string condition for the string whose tag is at `offset`, or `nil` when
    /// its bytes are damaged (for the general path to report).
    @inline(__always)
    static func answerForText(
        _ predicate: UnsafePointer<RecordPredicate>, _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) -> Bool? {
        var start = offset + 1
        let length = RecordScan.varint(bytes, &start)
        guard length >= 0, length <= bytes.count - start else { return nil }
        let payload = UnsafeRawBufferPointer(start: bytes.baseAddress.unsafelyUnwrapped + start, count: length)
        // Damaged text is the decoder's to report, whatever the comparison would answer.
        guard isValidText(payload, in: bytes) else { return nil }
        let op = predicate.pointee.condition.op
        // Most values an equality filter rejects differ in length: answered without the text's bytes.
        if length != predicate.pointee.textCount && (op == .equal || op == .notEqual) { return op == .notEqual }
        return predicate.pointee.text.withUnsafeBytes { text in
            switch op {
            // Equality compares lengths first: most values a filter rejects differ there.
            case .equal: return UTF8Order.equal(payload, text)
            case .notEqual: return !UTF8Order.equal(payload, text)
            case .less: return UTF8Order.compare(payload, text) < 0
            case .lessOrEqual: return UTF8Order.compare(payload, text) <= 0
            case .greater: return UTF8Order.compare(payload, text) > 0
            case .greaterOrEqual: return UTF8Order.compare(payload, text) >= 0
            case .prefix: return payload.starts(with: text)
            case .in, .notIn, .exists: return nil
            }
        }
    }
}
