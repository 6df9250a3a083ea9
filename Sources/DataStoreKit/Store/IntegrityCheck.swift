import DataStoreCore
import LMDB

/// A disagreement found by ``DataStore/check()``.
public struct IntegrityProblem: Sendable, Hashable, CustomStringConvertible {
    /// The collection concerned.
    public var collection: String
    /// The index concerned, if any.
    public var index: String?
    /// What is wrong, naming the record or entry.
    public var message: String

    public var description: String {
        "\(collection)\(index.map { " index \($0)" } ?? ""): \(message)"
    }
}

extension DataStore {
    /// Verifies, over one snapshot, that every record decodes, every index holds exactly the
    /// entries its records call for (no missing entry, no stray one), and no value of a unique
    /// index is held by two records (values whose keys were cut are compared in full).
    ///
    /// - Complexity: O(records × indexes + index entries).
    public func check() throws -> [IntegrityProblem] {
        let names = try collectionNames()
        var problems: [IntegrityProblem] = []
        for name in names {
            let stored = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) }
            guard let stored else { continue }
            let storage = try registeredStorage(name, idField: stored.idField)
            problems += try check(storage)
        }
        return problems
    }

    func check(_ storage: CollectionTable) throws -> [IntegrityProblem] {
        try environment.read { transaction in
            var problems: [IntegrityProblem] = []
            var expected: [String: Set<[UInt8]>] = [:]
            let indexes = storage.indexes
            var duplicates = indexes.filter { $0.definition.unique && $0.state == .ready }.map(DuplicateFinder.init)
            try transaction.withCursor(on: storage.records) { cursor in
                var entry = try cursor.move(.first)
                while let current = entry {
                    let shownID = (try? KeyCodec.decode(current.key).first?.description) ?? "\(current.key)"
                    do {
                        let document = try current.value.withUnsafeBytes { try storage.decodeDocument($0, id: shownID) }
                        if let id = document[storage.idField], (try? storage.idKey(id)) != current.key {
                            problems.append(
                                IntegrityProblem(
                                    collection: storage.name, index: nil,
                                    message: "record \(shownID) holds id \(id) in field \(storage.idField)"))
                        }
                        for index in indexes {
                            let entries = try index.entries(for: document, idKey: current.key, collection: storage.name)
                            expected[index.name, default: []].formUnion(entries.map(\.key))
                            if let position = duplicates.firstIndex(where: { $0.index.name == index.name }) {
                                duplicates[position].add(entries, of: document, id: shownID)
                            }
                        }
                    } catch {
                        problems.append(
                            IntegrityProblem(
                                collection: storage.name, index: nil,
                                message: "\(error)"))
                    }
                    entry = try cursor.move(.next)
                }
            }
            for index in indexes where index.state == .ready {
                var wanted = expected[index.name] ?? []
                try transaction.withCursor(on: index.database) { cursor in
                    var entry = try cursor.move(.first)
                    while let current = entry {
                        if wanted.remove(current.key) == nil {
                            problems.append(
                                IntegrityProblem(
                                    collection: storage.name, index: index.name,
                                    message: "stray entry of \(current.key.count) bytes with no matching record"))
                        }
                        entry = try cursor.move(.next)
                    }
                }
                for _ in wanted {
                    problems.append(
                        IntegrityProblem(
                            collection: storage.name, index: index.name,
                            message: "a record's entry is missing"))
                }
            }
            for finder in duplicates { problems += finder.problems(collection: storage.name) }
            return problems
        }
    }
}

extension StoreCollection {
    /// Verifies this collection's records and index entries (see ``DataStore/check()``).
    public func check() throws -> [IntegrityProblem] {
        try store.check(storage)
    }
}
