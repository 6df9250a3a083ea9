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

    /// A problem found by another backend's check.
    package init(collection: String, index: String?, message: String) {
        self.collection = collection
        self.index = index
        self.message = message
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
            var audit = RecordAudit(storage: storage)
            try transaction.walk(storage.records) { key, value in
                audit.check(record: Array(key), value)
                return true
            }
            var problems = audit.problems
            for index in audit.indexes where index.state == .ready {
                var wanted = audit.expected[index.name] ?? []
                try transaction.walk(index.database) { key, value in
                    if wanted.remove(Array(key)) == nil {
                        problems.append(
                            IntegrityProblem(
                                collection: storage.name, index: index.name,
                                message: "stray entry of \(key.count) bytes with no matching record"))
                    } else if let problem = try coveredCopyProblem(key, value, of: index, in: storage, transaction) {
                        problems.append(problem)
                    }
                    return true
                }
                for _ in wanted {
                    problems.append(
                        IntegrityProblem(
                            collection: storage.name, index: index.name, message: "a record's entry is missing"))
                }
            }
            for finder in audit.duplicates { problems += finder.problems(collection: storage.name) }
            return problems
        }
    }
}

/// The problem with the value of the entry `key` of `index`, whose record exists: a covering
/// entry must hold its record byte for byte, any other entry nothing.
private func coveredCopyProblem(
    _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, of index: IndexTable,
    in storage: CollectionTable, _ transaction: borrowing ReadTransaction
) throws -> IntegrityProblem? {
    guard let idKey = StorageKeys.idKey(inIndexKey: key) else { return nil }
    let agrees =
        index.definition.coversDocument
        ? try transaction.withValue(forKey: idKey, in: storage.records) { $0.elementsEqual(value) } ?? false
        : value.isEmpty
    if agrees { return nil }
    let id = (try? KeyCodec.decode(Array(idKey)).first?.description) ?? "\(Array(idKey))"
    let message =
        index.definition.coversDocument
        ? "the covered copy of record \(id) differs from the record"
        : "the entry of record \(id) holds \(value.count) bytes; an index that does not cover holds none"
    return IntegrityProblem(collection: storage.name, index: index.name, message: message)
}

/// What the records of one collection say its indexes must hold, gathered record by record.
private struct RecordAudit {
    let storage: CollectionTable
    /// The indexes as the walk began, read once.
    let indexes: [IndexTable]
    var problems: [IntegrityProblem] = []
    /// Per index, the entry keys the records call for.
    var expected: [String: Set<[UInt8]>] = [:]
    var duplicates: [DuplicateFinder]

    init(storage: CollectionTable) {
        self.storage = storage
        indexes = storage.indexes
        duplicates = indexes.filter { $0.definition.unique && $0.state == .ready }.map(DuplicateFinder.init)
    }

    mutating func check(record key: [UInt8], _ value: UnsafeRawBufferPointer) {
        let shownID = (try? KeyCodec.decode(key).first?.description) ?? "\(key)"
        do {
            let document = try storage.decodeDocument(value, id: shownID)
            if let id = document[storage.idField], (try? storage.idKey(id)) != key {
                problems.append(
                    IntegrityProblem(
                        collection: storage.name, index: nil,
                        message: "record \(shownID) holds id \(id) in field \(storage.idField)"))
            }
            for index in indexes {
                let entries = try index.entries(for: document, idKey: key, collection: storage.name)
                expected[index.name, default: []].formUnion(entries.map(\.key))
                if let position = duplicates.firstIndex(where: { $0.index.name == index.name }) {
                    duplicates[position].add(entries, of: document, id: shownID)
                }
            }
        } catch {
            problems.append(IntegrityProblem(collection: storage.name, index: nil, message: "\(error)"))
        }
    }
}

extension StoreCollection {
    /// Verifies this collection's records and index entries (see ``DataStore/check()``).
    public func check() throws -> [IntegrityProblem] {
        try store.check(storage)
    }
}
