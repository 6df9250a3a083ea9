import DataStoreCore
import LMDB
import DataStoreEngine

extension DataStore {
    /// Verifies, over one snapshot, that every page of the data file is sound (read from the file
    /// before LMDB follows it, so damaged pages are reported, not crashed on), every record
    /// decodes, every index holds exactly the entries its records call for (no missing entry, no
    /// stray one), and no value of a unique index is held by two records (values whose keys were
    /// cut are compared in full). A collection or index on damaged pages is reported and not read.
    ///
    /// - Complexity: O(pages + records × indexes + index entries).
    public func check() throws -> [IntegrityProblem] {
        let structure = try environment.verifyStructure()
        var problems = structure.map(IntegrityProblem.init(structure:))
        let damaged = Set(structure.map(\.database))
        // The catalog and `_meta` are read to find the collections: not on damaged pages.
        if damaged.contains(nil) || damaged.contains("_meta") { return problems }
        for name in try collectionNames() {
            let stored = try environment.read { try StoreSchema.read(name, in: $0, meta: meta) }
            guard let stored, !damaged.contains(StoreSchema.recordsDatabaseName(name)) else { continue }
            let storage = try registeredStorage(name, idField: stored.idField)
            problems += try check(storage, skipping: damaged)
        }
        return problems
    }

    /// The problems of the store's data file at `path` that ``open(path:options:)`` would meet,
    /// found without opening it as a store: damage to LMDB's own pages or the store's catalog
    /// makes LMDB fail or crash as it opens them, so a tool checks this first
    /// (``check()`` reports the rest).
    /// - Throws: `LMDBError` when the directory holds no LMDB environment.
    public static func structureProblems(atPath path: String) throws -> [IntegrityProblem] {
        let opened = Result { () throws(LMDBError) in
            try Environment.open(
                path: path, configuration: Environment.Configuration(flags: .readOnly, createDirectory: false))
        }
        // LMDB refuses a meta page whose flags, magic or version are damaged, and the precheck one
        // whose values it would follow out of the file: both are damage to report.
        if case .failure(let error) = opened,
            [.corrupted, .invalid, .versionMismatch, .invalidArgument].contains(error.code)
        {
            return [IntegrityProblem(collection: "LMDB's own pages", index: nil, message: error.context)]
        }
        let environment = try opened.get()
        return try environment.verifyStructure().filter { [nil, "_meta", "_changes"].contains($0.database) }
            .map(IntegrityProblem.init(structure:))
    }

    func check(_ storage: CollectionTable, skipping damaged: Set<String?> = []) throws -> [IntegrityProblem] {
        try environment.read { transaction in
            var audit = RecordAudit(storage: storage)
            try transaction.walk(storage.records) { key, value in
                audit.check(record: Array(key), value)
                return true
            }
            var problems = audit.problems
            for index in audit.indexes where index.state == .ready {
                if damaged.contains(StoreSchema.indexDatabaseName(storage.name, index.name)) { continue }
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

extension IntegrityProblem {
    /// A damaged page, named by the collection and index it belongs to (the store's own
    /// databases and LMDB's by their names), with the first key it may hold.
    init(structure problem: StructureProblem) {
        let parts = problem.database?.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false) ?? []
        var collection = problem.database ?? "LMDB's own pages"
        var index: String?
        var key = problem.key.map { " (holding keys from \(Self.shown($0)))" } ?? ""
        if parts.count == 2, parts[0] == "c" {
            collection = String(parts[1])
            if let id = problem.key.flatMap({ try? KeyCodec.decode($0).first }) { key = " (holding ids from \(id))" }
        } else if parts.count == 3, parts[0] == "i" {
            collection = String(parts[1])
            index = String(parts[2])
        }
        self.init(
            collection: collection, index: index,
            message: "damaged page \(problem.page)\(key): \(problem.message); its contents are not read")
    }

    /// A key as hexadecimal, its first 32 bytes.
    private static func shown(_ key: [UInt8]) -> String {
        let hex = key.prefix(32).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        return "0x" + hex + (key.count > 32 ? "…" : "")
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
    /// Verifies this collection's pages, records and index entries (see ``DataStore/check()``).
    public func check() throws -> [IntegrityProblem] {
        let structure = try store.environment.verifyStructure()
        let records = StoreSchema.recordsDatabaseName(name)
        let own = structure.filter { problem in
            problem.database == nil || problem.database == records
                || problem.database?.hasPrefix(StoreSchema.indexDatabaseName(name, "")) == true
        }
        let damaged = Set(own.map(\.database))
        let problems = own.map(IntegrityProblem.init(structure:))
        if damaged.contains(nil) || damaged.contains(records) { return problems }
        return problems + (try store.check(storage, skipping: damaged))
    }
}
