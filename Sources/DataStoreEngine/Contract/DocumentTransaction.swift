public import DataStoreCore

/// A write transaction run by the store's writer (``DocumentStore/write(_:)``): reads see the
/// latest committed state plus this transaction's own writes, and its writes commit together, in
/// one change set, or not at all. Nothing can change underneath it, so no conflict is possible.
///
/// It lives only while the closure `write` runs: a call after that throws `.invalidValue`.
/// A write that fails (a duplicate id, a unique violation, an object not found) fails the whole
/// transaction: the closure's later calls throw the same error, and nothing of it is written, even
/// when the closure catches the error. Read first (``get(id:from:)`` throws `.notFound` without
/// failing the transaction) to decide what to write.
///
/// The protocol is closed: do not declare new conformances. A collection passed to it must be one
/// of the same store's; another store's is refused with `.invalidValue`.
public protocol DocumentTransaction: AnyObject {
    /// The object stored under `id`, as this transaction sees it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    func get<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object
    /// The objects matching `params`, shaped by `options`, as this transaction sees them.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery`, `.invalidOption`.
    func query<Object>(
        _ collection: any DocumentCollection<Object>, params: [String: Value]?, options: [String: Value]?
    ) throws -> [Object]
    /// Adds `object` (a new id when it has none); returns it as stored.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.duplicateID`, `.uniqueViolation`, `.invalidValue`.
    @discardableResult
    func add<Object>(_ object: Object, to collection: any DocumentCollection<Object>) throws -> Object
    /// Stores `object` under `id`, replacing what is there; returns it as stored.
    @discardableResult
    func put<Object>(id: Value, object: Object, in collection: any DocumentCollection<Object>) throws -> Object
    /// Removes the object stored under `id`; returns it.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id.
    @discardableResult
    func remove<Object>(id: Value, from collection: any DocumentCollection<Object>) throws -> Object
    /// Applies `update` (fields by path: ``/DataStoreCore/FieldUpdate``) to the object under `id`;
    /// returns it as updated.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound`, `.invalidValue` naming the field.
    @discardableResult
    func update<Object>(id: Value, _ update: FieldUpdate, in collection: any DocumentCollection<Object>) throws
        -> Object
    /// Removes every object matching `params`; returns how many.
    @discardableResult
    func remove<Object>(params: [String: Value]?, from collection: any DocumentCollection<Object>) throws -> Int
    /// Saves `commit` as the position of the feed consumer `consumer`, with this transaction's
    /// writes: a consumer that applies each commit's changes and saves the position it reached in
    /// one transaction applies each commit exactly once, whenever it stops.
    func saveFeedPosition(_ commit: CommitID, of consumer: String) throws
}

extension DocumentTransaction {
    /// The objects matching `params`, as this transaction sees them.
    public func query<Object>(_ collection: any DocumentCollection<Object>, params: [String: Value]?) throws
        -> [Object]
    {
        try query(collection, params: params, options: nil)
    }

    /// Sets and removes fields of the object under `id` (``update(id:_:in:)`` with a
    /// ``/DataStoreCore/FieldUpdate`` of them); returns the object as updated.
    @discardableResult
    public func update<Object>(
        id: Value, set: [String: Value], unset: [String] = [], in collection: any DocumentCollection<Object>
    ) throws -> Object {
        try update(id: id, FieldUpdate(set: set, unset: unset), in: collection)
    }
}

/// What a ``DocumentTransaction`` of either store keeps between calls: whether it still lives, and
/// the write failure that doomed it.
package final class TransactionState {
    private var ended = false
    private var failure: (any Error)?

    package init() {}

    /// Refuses a call once the transaction ended or a write failed.
    package func checkUsable() throws {
        if let failure { throw failure }
        if ended {
            throw DataStoreError(
                .invalidValue,
                "a write transaction was used after its closure returned: use the transaction only inside write { }")
        }
    }

    /// Runs a write: its error dooms the transaction (the write may have left part of itself).
    package func write<R>(_ body: () throws -> R) throws -> R {
        try checkUsable()
        do { return try body() } catch {
            failure = error
            throw error
        }
    }

    /// Runs the closure of `write { }` with `scope`, then ends the transaction: throws what
    /// `body` threw, or the write failure that doomed the transaction even if `body` caught it.
    package func run<R>(_ body: (any DocumentTransaction) throws -> R, with scope: any DocumentTransaction) throws
        -> R
    {
        defer { ended = true }
        let result = try body(scope)
        if let failure { throw failure }
        return result
    }
}
