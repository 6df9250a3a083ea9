/// What a partial update does to a stored document's fields (``ModelProtocol/update(id:_:)``):
/// each field — a path, as queries read it — set, removed, incremented, or its array appended to
/// or stripped of elements. The store applies it to the document as stored, atomically: two
/// concurrent updates of different fields both land.
///
/// ```swift
/// try await users.update(id: "u1", FieldUpdate(
///     set: ["profile.city": "Milan"], increment: ["visits": 1], append: ["tags": ["new"]]))
/// ```
///
/// A field is a path: `profile.city` is the field `city` of the object `profile`, and setting it
/// makes the objects on the way when they are missing; `a\.b` names a field whose name holds a
/// dot. A path may not pass through a value that is not an object (an update does not guess which
/// element of an array is meant), and two changes may not touch the same field or one inside the
/// other: each is a typed error naming the field, and nothing is written.
public struct FieldUpdate: Sendable, Hashable {
    /// One change to one field.
    public enum Change: Sendable, Hashable {
        /// Stores the value (``Value/null`` stores an explicit null).
        case set(Value)
        /// Removes the field; a field the document lacks is no error.
        case unset
        /// Adds the number to the field's number (an absent field counts as 0): integers stay
        /// integers while the sum fits, a double makes a double.
        case increment(Value)
        /// Appends the values to the field's array (an absent field counts as empty).
        case append([Value])
        /// Removes every element equal to one of the values from the field's array (an absent
        /// field is no error).
        case remove([Value])
    }

    /// The changes, by field path as written.
    public private(set) var changes: [String: Change]
    /// A field named twice among the initializer's arguments, reported by ``validate(idField:target:)``.
    private var repeated: String?

    /// An update setting, removing, incrementing and appending to or removing from the fields named.
    public init(
        set: [String: Value] = [:], unset: [String] = [], increment: [String: Value] = [:],
        append: [String: [Value]] = [:], remove: [String: [Value]] = [:]
    ) {
        changes = [:]
        for (field, value) in set { add(field, .set(value)) }
        for field in unset { add(field, .unset) }
        for (field, value) in increment { add(field, .increment(value)) }
        for (field, values) in append { add(field, .append(values)) }
        for (field, values) in remove { add(field, .remove(values)) }
    }

    private mutating func add(_ field: String, _ change: Change) {
        if changes[field] != nil { repeated = repeated ?? field }
        changes[field] = change
    }

    /// Whether the update leaves every document as it was.
    public var isEmpty: Bool { changes.isEmpty }

    /// The fields `set` stores, with their values.
    package var assigned: [String: Value] {
        changes.compactMapValues { if case .set(let value) = $0 { value } else { nil } }
    }

    /// The fields `unset` removes.
    package var removed: [String] {
        changes.compactMap { if case .unset = $0.value { $0.key } else { nil } }.sorted()
    }
}

extension FieldUpdate {
    /// Checks that every field is a path, none is the id field or inside it, none is named twice
    /// or lies inside another, and each increment is a number.
    ///
    /// - Parameters:
    ///   - idField: The model's id field, which an update may not touch.
    ///   - target: What is updated, for the message (`"Message/42"`).
    /// - Throws: ``DataStoreError/Code/invalidValue`` naming the field.
    package func validate(idField: String, target: String) throws(DataStoreError) {
        if let repeated {
            throw DataStoreError(.invalidValue, "an update of \(target) changes field \(repeated) twice")
        }
        var paths: [(field: String, components: [String])] = []
        for (field, change) in changes.sorted(by: { $0.key < $1.key }) {
            if field.isEmpty { throw DataStoreError(.invalidValue, "an update of \(target) names an empty field") }
            let path: FieldPath
            do { path = try FieldPath(parsing: field) } catch {
                throw DataStoreError(.invalidValue, "an update of \(target): \(error.message)")
            }
            if path.components[0] == idField {
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) may not change its id field \(idField); "
                        + "remove the object and add it under the new id")
            }
            if case .increment(let amount) = change, !Self.isNumber(amount) {
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) increments field \(field) by \(amount), which is not a number")
            }
            paths.append((field, path.components))
        }
        for (position, outer) in paths.enumerated() {
            for inner in paths[(position + 1)...]
            where Self.contains(outer.components, inner.components) || Self.contains(inner.components, outer.components)
            {
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) changes both \(outer.field) and \(inner.field), one inside the other")
            }
        }
    }

    private static func isNumber(_ value: Value) -> Bool {
        switch value {
        case .int, .double: true
        default: false
        }
    }

    /// Whether `path` is `prefix` or lies inside it.
    private static func contains(_ prefix: [String], _ path: [String]) -> Bool {
        path.count >= prefix.count && Array(path.prefix(prefix.count)) == prefix
    }

    /// `document` with these changes, in field order.
    /// - Throws: ``DataStoreError/Code/invalidValue`` naming the field, for a path through a value
    ///   that is not an object, an increment of a value that is not a number (or past `Int64`),
    ///   an append to or removal from a value that is not an array. Call
    ///   ``validate(idField:target:)`` first.
    package func applied(to document: Document, target: String) throws(DataStoreError) -> Document {
        var changed = document
        for (field, change) in changes.sorted(by: { $0.key < $1.key }) {
            let components = (try? FieldPath(parsing: field))?.components ?? [field]
            try Self.apply(change, at: components[...], in: &changed, field: field, target: target)
        }
        return changed
    }

    private static func apply(
        _ change: Change, at path: ArraySlice<String>, in document: inout Document, field: String, target: String
    ) throws(DataStoreError) {
        let name = path[path.startIndex]
        guard path.count == 1 else {
            var inner: Document
            switch document[name] {
            case .object(let object)?: inner = object
            case nil:
                // Nothing to remove below a missing field; anything else makes the objects on the way.
                if case .unset = change { return }
                if case .remove = change { return }
                inner = Document()
            case let other?:
                if case .unset = change { return }
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) changes field \(field), but \(name) there is a value of type \(other.typeName), "
                        + "not an object")
            }
            try apply(change, at: path.dropFirst(), in: &inner, field: field, target: target)
            document[name] = .object(inner)
            return
        }
        switch change {
        case .set(let value):
            document[name] = value
        case .unset:
            document[name] = nil
        case .increment(let amount):
            document[name] = try sum(document[name] ?? .int(0), amount, field: field, target: target)
        case .append(let values):
            switch document[name] {
            case nil: document[name] = .array(values)
            case .array(let elements)?: document[name] = .array(elements + values)
            case let other?:
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) appends to field \(field), which holds a value of type \(other.typeName), not an array"
                )
            }
        case .remove(let values):
            switch document[name] {
            case nil: return
            case .array(let elements)?: document[name] = .array(elements.filter { !values.contains($0) })
            case let other?:
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) removes elements from field \(field), which holds a value of type \(other.typeName), not an array"
                )
            }
        }
    }

    /// `stored + amount`: integers while the sum fits in `Int64`, a double when either is one.
    private static func sum(_ stored: Value, _ amount: Value, field: String, target: String) throws(DataStoreError)
        -> Value
    {
        switch (stored, amount) {
        case (.int(let a), .int(let b)):
            let (total, overflow) = a.addingReportingOverflow(b)
            guard !overflow else {
                throw DataStoreError(
                    .invalidValue,
                    "an update of \(target) increments field \(field) past the largest integer (\(a) + \(b))")
            }
            return .int(total)
        case (.int(let a), .double(let b)): return .double(Double(a) + b)
        case (.double(let a), .int(let b)): return .double(a + Double(b))
        case (.double(let a), .double(let b)): return .double(a + b)
        default:
            throw DataStoreError(
                .invalidValue,
                "an update of \(target) increments field \(field), which holds a value of type \(stored.typeName), not a number"
            )
        }
    }
}

/// The update's internal name in the stores, from before it had operators.
package typealias FieldChanges = FieldUpdate
