public import DataStoreCore
import DataStoreEngine
import Foundation

extension PostgresCollection {
    /// How often an update or a removal by query is tried again when what it read changed before
    /// its change set committed.
    static var writeAttempts: Int { 32 }

    /// Stores the fields in `set` and removes those in `unset` on the object under `id`, keeping
    /// its other fields — those `Object` does not name included — and returns the object as stored.
    ///
    /// The stored document is read with its version, merged, and written as one change set that
    /// commits only while the version is still the one read; when another write landed between,
    /// it is read and merged again. So concurrent updates of different fields all land, as on LMDB.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the id (an update never inserts);
    ///   `.invalidValue` naming the field (see ``/DataStoreCore/FieldUpdate``), for a value the record format
    ///   cannot hold, or a result that no longer decodes as `Object` (nothing is written);
    ///   `.uniqueViolation`; `.conflict` when other writes changed the object every time it was
    ///   read (32 times).
    @discardableResult
    public func update(id: Value, _ changes: FieldUpdate) async throws -> Object {
        if id == .null { throw DataStoreError(.notFound, "no object without an id in \(name)") }
        try changes.validate(idField: layout.idField, target: "\(name)/\(id)")
        let key = try layout.idKey(id)
        for attempt in 1...Self.writeAttempts {
            guard let (document, version) = try await storedDocument(key) else {
                throw DataStoreError(.notFound, "no object with id \(id) in \(name)")
            }
            let merged = try changes.applied(to: document, target: "\(name)/\(id)")
            let object = try mapping.decodeUpdated(merged, id: id, in: name)
            if changes.isEmpty { return object }
            let row = try PreparedRow(merged, id: id, layout: layout, maxBytes: store.maxDocumentBytes)
            do {
                _ = try await store.writer.submit([.upsert(row, layout, version: version)])
                return object
            } catch let error as DataStoreError where error.code == .conflict && attempt < Self.writeAttempts {
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(100 << min(attempt, 6)))))
            }
        }
        throw DataStoreError(
            .conflict, "\(name)/\(id) changed under \(Self.writeAttempts) attempts to update it; try again")
    }

    /// Removes every object matching every condition in `params` in one change set — all of them
    /// or, on any error, none — and returns how many it removed. `nil` or `[:]` removes every
    /// object.
    ///
    /// The matches are read with their versions and removed in one change set that commits only
    /// while each is still the version read; when another write changed one between, the query
    /// runs again.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming the bad key; `.conflict`
    ///   when the matches changed every time they were read.
    @discardableResult
    public func remove(params: [String: Value]?) async throws -> Int {
        try await remove(Query(params: params, options: nil))
    }

    /// Removes every object matching `query`'s conditions (its sort, offset and limit do not
    /// change what is removed) in one change set, and returns how many. See ``remove(params:)``.
    @discardableResult
    public func remove(_ query: Query) async throws -> Int {
        let matching = Query(conditions: query.conditions)
        for attempt in 1...Self.writeAttempts {
            let rows = try await matches(matching)
            if rows.isEmpty { return 0 }
            do {
                _ = try await store.writer.submit(
                    rows.map { .remove(id: $0.id, key: $0.key, layout, version: Int($0.version)) })
                return rows.count
            } catch let error as DataStoreError where error.code == .conflict && attempt < Self.writeAttempts {
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(100 << min(attempt, 6)))))
            }
        }
        throw DataStoreError(
            .conflict,
            "the objects of \(name) matching the query changed under \(Self.writeAttempts) attempts to remove them")
    }

    /// The document stored under `key` and its version, or `nil`.
    private func storedDocument(_ key: [UInt8]) async throws -> (Document, Int)? {
        let layout = self.layout
        return try await store.readers.run {
            try self.store.pool.read("reading \(layout.name)") { connection -> (Document, Int)? in
                let result = try connection.executePrepared(layout.recordsByIDs, [.byteaArray([key])])
                guard result.rowCount == 1, let record = result.bytes(0, 1), let version = result.int(0, 2) else {
                    return nil
                }
                do { return (try RecordCodec.decode(record), Int(version)) } catch {
                    throw DataStoreError(.codec, "a record of \(layout.name) cannot be decoded", underlying: error)
                }
            }
        }
    }

    /// The ids, record keys and versions of the objects matching `query`, from one snapshot.
    private func matches(_ query: Query) async throws -> [(id: Value, key: [UInt8], version: Int64)] {
        let layout = self.layout
        let runner = try PostgresQueryRunner(layout: layout, plan: layout.plan(query), versions: true)
        return try await store.readers.run {
            try self.run(runner) { body, version in
                let id = try layout.storedID(in: body)
                return (id, try layout.idKey(id), version)
            }
        }
    }
}
