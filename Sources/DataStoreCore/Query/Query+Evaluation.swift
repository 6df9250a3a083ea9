/// Matching documents against conditions, and answering a query by brute force: the reference
/// every model and the planner are tested against (see docs/queries.md, "Matching").
extension Condition {
    /// Whether `document` satisfies this condition; a document without ``field`` never does.
    ///
    /// - Complexity: See ``matches(fieldValue:)``.
    package func matches(_ document: Document) -> Bool {
        matches(fieldValue: document.value(atPath: field))
    }

    /// Whether a document whose ``field`` holds `fieldValue` (`nil` when absent) satisfies this
    /// condition.
    ///
    /// - A missing field matches nothing, not even `!=` or `!in`, except `exists false`;
    ///   `exists true` matches any present value, `null` included.
    /// - `==` is ``Value``'s equality (`1 == 1.0`; strings by UTF-8 bytes; `null == null`).
    /// - `<`, `<=`, `>`, `>=` hold only within one type class (bools, numbers, strings, bytes);
    ///   a condition value of another class (`null`, array, object) never matches.
    /// - An array field and a non-array condition value: `==`, `in` and the range operators hold
    ///   when any element does; `!=` is the negation of `==`.
    /// - `in` holds when `==` holds for any element of the condition's array; with a non-array
    ///   condition value it never matches. `!in` is the negation of `in` for a present field.
    /// - `^=` holds for a string field (or an array field's string element) whose UTF-8 bytes
    ///   start with the condition's.
    ///
    /// - Complexity: O(*n*) value comparisons for an array field or an `in` list of *n* elements.
    package func matches(fieldValue: Value?) -> Bool {
        guard let fieldValue else { return op == .exists && value == .bool(false) }
        switch op {
        case .exists:
            return value == .bool(true)
        case .notIn:
            guard case .array(let candidates) = value else { return false }
            return !candidates.contains { Condition.equals(fieldValue, $0) }
        case .prefix:
            guard case .string(let prefix) = value else { return false }
            if case .array(let elements) = fieldValue {
                return elements.contains { Condition.hasPrefix($0, prefix) }
            }
            return Condition.hasPrefix(fieldValue, prefix)
        case .equal:
            return Condition.equals(fieldValue, value)
        case .notEqual:
            return !Condition.equals(fieldValue, value)
        case .in:
            guard case .array(let candidates) = value else { return false }
            return candidates.contains { Condition.equals(fieldValue, $0) }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if case .array(let elements) = fieldValue {
                return elements.contains { rangeHolds($0) }
            }
            return rangeHolds(fieldValue)
        }
    }

    /// `==` with array fields as multi-values: an array field equals a non-array target when any
    /// element does; an array target is compared with the whole field.
    static func equals(_ fieldValue: Value, _ target: Value) -> Bool {
        if case .array(let elements) = fieldValue, target.arrayValue == nil {
            return elements.contains(target)
        }
        return fieldValue == target
    }

    /// Whether `value` is a string whose UTF-8 bytes start with `prefix`'s.
    static func hasPrefix(_ value: Value, _ prefix: String) -> Bool {
        guard case .string(let text) = value else { return false }
        return text.utf8.starts(with: prefix.utf8)
    }

    /// Whether the range operator holds for one scalar `element`, within one type class.
    func rangeHolds(_ element: Value) -> Bool {
        guard Condition.isOrderable(value), element.typeRank == value.typeRank else { return false }
        let order = Value.compare(element, value)
        switch op {
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        case .equal, .notEqual, .in, .notIn, .prefix, .exists: return false
        }
    }
}

extension Query {
    /// Whether `document` satisfies every condition (always, for no conditions).
    ///
    /// - Complexity: O(*c*) condition checks.
    package func matches(_ document: Document) -> Bool {
        conditions.allSatisfy { $0.matches(document) }
    }

    /// Answers the query by brute force: keeps the matching documents, sorts them with
    /// ``areInOrder(_:_:idField:)`` (by `idField` alone when there are no sort keys; documents
    /// that compare equal keep their order in `documents`), then skips ``offset`` and keeps at
    /// most ``limit``.
    ///
    /// - Parameters:
    ///   - documents: The documents to search.
    ///   - idField: The id field that breaks ties in the sort order.
    /// - Returns: The answer, in order.
    /// - Complexity: O(*n* log *n*) for *n* documents.
    package func evaluate(_ documents: some Sequence<Document>, idField: String) -> [Document] {
        let matching = documents.enumerated().filter { matches($0.element) }
        let sorted = matching.sorted { a, b in
            if areInOrder(a.element, b.element, idField: idField) { return true }
            if areInOrder(b.element, a.element, idField: idField) { return false }
            return a.offset < b.offset
        }
        let start = min(max(offset, 0), sorted.count)
        let end = limit.map { start + min(max($0, 0), sorted.count - start) } ?? sorted.count
        return sorted[start..<end].map(\.element)
    }
}
