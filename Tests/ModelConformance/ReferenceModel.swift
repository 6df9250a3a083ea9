// The simplest correct model: documents in a dictionary, queries answered by Query.evaluate.
public import DataStoreCore
import Foundation
import Synchronization

/// An in-memory ``ModelProtocol`` answering every query by brute force with
/// ``Query/evaluate(_:idField:)``: the battery's own reference, used to check the battery itself
/// (it must pass every scenario) and as a stand-in model in tests.
public final class ReferenceModel<Object>: MappedModel {
    /// How objects become documents and back (the protocol's update and remove-by-query
    /// defaults work through it).
    public let mapping: ObjectMapping<Object>
    private let documents = Mutex<[Value: Document]>([:])
    private let counter = Atomic<Int>(0)

    /// Creates an empty model.
    ///
    /// - Parameter mapping: How objects become documents and back.
    public init(mapping: ObjectMapping<Object>) {
        self.mapping = mapping
    }

    /// Answers by brute force.
    public func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object] {
        let query = try Query(params: params, options: options)
        let all = documents.withLock { Array($0.values) }
        return try query.evaluate(all, idField: mapping.idField).map(mapping.decode)
    }

    /// The object stored under `id`.
    public func get(id: Value) async throws -> Object {
        guard let document = documents.withLock({ $0[id] }) else { throw notFound(id) }
        return try mapping.decode(document)
    }

    /// Replaces or inserts.
    public func put(id: Value, object: Object) async throws -> Object {
        var document = try mapping.encode(object)
        guard Self.isID(id) else { throw DataStoreError(.invalidID, "id \(id) is missing or empty") }
        document[mapping.idField] = id
        documents.withLock { $0[id] = document }
        return try mapping.decode(document)
    }

    /// Inserts, generating an id when the object has none (null or empty counts as none).
    public func add(object: Object) async throws -> Object {
        var document = try mapping.encode(object)
        if let id = document[mapping.idField], Self.isID(id) {
            // keep it
        } else {
            let number = counter.add(1, ordering: .relaxed).newValue
            document[mapping.idField] = .string(
                String(format: "%016llx%08x", UInt64(Date().timeIntervalSince1970 * 1e6), number))
        }
        let id = document[mapping.idField]!
        let inserted = documents.withLock { stored in
            guard stored[id] == nil else { return false }
            stored[id] = document
            return true
        }
        guard inserted else { throw DataStoreError(.duplicateID, "an object with id \(id) is already stored") }
        return try mapping.decode(document)
    }

    /// Deletes and returns.
    public func remove(id: Value) async throws -> Object {
        guard let document = documents.withLock({ $0.removeValue(forKey: id) }) else { throw notFound(id) }
        return try mapping.decode(document)
    }

    /// Every object, by id.
    public func all() async throws -> [Object] {
        try await query(params: nil, options: nil)
    }

    private func notFound(_ id: Value) -> DataStoreError {
        DataStoreError(.notFound, "no object with id \(id)")
    }

    private static func isID(_ id: Value) -> Bool {
        switch id {
        case .string(let text): !text.isEmpty
        case .int: true
        case .double(let number): Int64(exactly: number) != nil
        default: false
        }
    }
}
