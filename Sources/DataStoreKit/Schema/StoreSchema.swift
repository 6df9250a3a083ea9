import DataStoreCore
import Foundation
import LMDB
import DataStoreEngine

/// What `_meta` records about the store and each collection (docs/encoding.md, "Store layout").
///
/// Schemas are small and read once per open, so they are JSON; records and keys are not.
enum StoreSchema {
    /// The newest on-disk format this build reads and writes.
    static let formatVersion = recentChangesFormatVersion
    /// The format of a store no covering index was ever declared in, which builds from before
    /// covering indexes still open.
    static let baseFormatVersion = 1
    /// The format of a store that holds (or held) a covering index: a build that predates them
    /// would write records without their copies, so it must refuse the store.
    static let coveringFormatVersion = 2
    /// The format of a store whose change log keeps its newest records in the main database
    /// (``RecentChanges``): the feed of a build that predates them would miss those records.
    static let recentChangesFormatVersion = 3
    static let formatKey = Array("format".utf8)

    struct Collection: Codable, Sendable, Equatable {
        var idField: String
        var indexes: [Index]
    }

    struct Index: Codable, Sendable, Equatable {
        var definition: IndexDefinition
        var state: IndexTable.State
        /// `false` when the application's last declaration left the index out; absent (true)
        /// in schemas written before indexes were kept.
        var declared: Bool?
        /// `true` when the field names are written as paths (``/DataStoreCore/FieldPath``: a dot steps into an
        /// object, `\.` is a dot within a name); absent in schemas written before paths, whose
        /// field names were top-level names whatever they held.
        var paths: Bool?
        /// The process building the index while it is `building`; absent once ready, and in
        /// schemas written before builds had owners (such a build counts as abandoned).
        var owner: IndexBuildOwner?

        init(definition: IndexDefinition, state: IndexTable.State, declared: Bool?, owner: IndexBuildOwner? = nil) {
            self.definition = definition
            self.state = state
            self.declared = declared
            paths = true
            self.owner = owner
        }

        /// The index as written before paths existed, read as it was meant: a field name that
        /// holds a dot or a backslash named the top-level field of that name, so it is escaped.
        var readingPaths: Index {
            guard paths == nil else { return self }
            var index = self
            for position in index.definition.fields.indices {
                index.definition.fields[position].name = FieldPath.escaping(index.definition.fields[position].name)
            }
            index.paths = true
            return index
        }
    }

    static func collectionKey(_ name: String) -> [UInt8] { Array("collection/\(name)".utf8) }
    static func recordsDatabaseName(_ collection: String) -> String { "c/\(collection)" }
    static func indexDatabaseName(_ collection: String, _ index: String) -> String { "i/\(collection)/\(index)" }

    /// Writes the format version into a new store, or checks that an existing one is readable.
    static func checkFormat(environment: Environment, meta: Database) throws {
        let stored = try environment.read { try $0.value(forKey: formatKey, in: meta) }
        guard let stored else {
            if environment.configuration.flags.contains(.readOnly) { return }
            try environment.write { try $0.put([UInt8(baseFormatVersion)], forKey: formatKey, in: meta) }
            return
        }
        guard stored.count == 1, Int(stored[0]) <= formatVersion else {
            let found = stored.count == 1 ? "\(stored[0])" : "\(stored.count) bytes"
            throw DataStoreError(
                .unsupportedFormat,
                "the store at \(environment.path) has format version \(found); "
                    + "this build reads versions up to \(formatVersion)")
        }
    }

    /// Raises the stored format version to `version`, never lowering it. Returns whether it was
    /// already at least `version`.
    @discardableResult
    static func raiseFormat(to version: Int, in transaction: inout WriteTransaction, meta: Database) throws -> Bool {
        if let stored = try transaction.value(forKey: formatKey, in: meta), stored.count == 1, Int(stored[0]) >= version
        {
            return true
        }
        try transaction.put([UInt8(version)], forKey: formatKey, in: meta)
        return false
    }

    static func read(
        _ collection: String, in transaction: borrowing some ReadableTransaction & ~Copyable, meta: Database
    ) throws -> Collection? {
        guard let bytes = try transaction.value(forKey: collectionKey(collection), in: meta) else { return nil }
        do {
            var schema = try JSONDecoder().decode(Collection.self, from: Data(bytes))
            schema.indexes = schema.indexes.map(\.readingPaths)
            return schema
        } catch {
            throw DataStoreError(
                .schemaMismatch, "the stored schema of collection \(collection) cannot be read", underlying: error)
        }
    }

    /// Writes `collection`'s schema and raises the schema generation, which it returns, so that
    /// every other process reloads it before its next use of the collection's indexes.
    @discardableResult
    static func write(
        _ schema: Collection, for collection: String, in transaction: inout WriteTransaction, meta: Database
    ) throws -> UInt64 {
        let bytes = try JSONEncoder().encode(schema)
        try transaction.put(Array(bytes), forKey: collectionKey(collection), in: meta)
        if schema.indexes.contains(where: { $0.definition.covering != nil }) {
            try raiseFormat(to: coveringFormatVersion, in: &transaction, meta: meta)
        }
        return try raiseGeneration(in: &transaction, meta: meta)
    }
}
