public import DataStoreEngine
import DataStoreCore

extension DataStore {
    /// What the store holds, and its map, format and readers (``statistics()`` in the contract's
    /// shape, ``/DataStoreEngine/StoreReport``), from one look at the store.
    public func report() throws -> StoreReport {
        let statistics = try statistics()
        let percent = Double(statistics.bytesInUse) / Double(max(statistics.mapSize, 1)) * 100
        let readers = statistics.readers.map { reader -> Document in
            [
                "pid": .int(Int64(reader.processID)), "thisProcess": .bool(reader.isThisProcess),
                "snapshotTransactionID": .int(Int64(reader.snapshotID)),
                "commitsBehind": .int(Int64(reader.commitsBehind)),
                "ageSeconds": reader.age.map { .double(Self.seconds($0)) } ?? .null,
                "holder": reader.holder.map { .string($0) } ?? .null
            ]
        }
        let facts: [StoreReport.Fact] = [
            .init(key: "path", label: "store", value: .string(path)),
            .init(key: "formatVersion", label: "format", value: .int(Int64(statistics.formatVersion))),
            .init(key: "mapSize", label: "map size", value: .int(Int64(statistics.mapSize)), isByteCount: true),
            .init(
                key: "bytesInUse", label: "in use", value: .int(Int64(statistics.bytesInUse)),
                text: "\((percent * 10).rounded() / 10)% of the map", isByteCount: true),
            .init(
                key: "lastTransactionID", label: "last commit", value: .int(Int64(statistics.lastTransactionID)),
                text: "transaction \(statistics.lastTransactionID)"),
            .init(key: "maxReaders", label: nil, value: .int(Int64(statistics.maxReaders))),
            .init(
                key: "readersInUse", label: "readers", value: .int(Int64(statistics.readersInUse)),
                text: "\(statistics.readersInUse) of \(statistics.maxReaders) slots in use, "
                    + "\(statistics.readers.count) holding a snapshot"),
            .init(key: "readers", label: nil, value: .array(readers.map(Value.object)))
        ]
        let listings: [StoreReport.Listing] =
            statistics.readers.isEmpty
            ? []
            : [
                StoreReport.Listing(
                    columns: ["reader pid", "process", "snapshot", "commits behind", "age", "holder"],
                    rightAligned: [0, 2, 3, 4],
                    rows: statistics.readers.map { reader in
                        [
                            "\(reader.processID)", reader.isThisProcess ? "this" : "other",
                            "transaction \(reader.snapshotID)", "\(reader.commitsBehind)",
                            reader.age.map { "\((Self.seconds($0) * 10).rounded() / 10) s" } ?? "unknown",
                            reader.holder ?? ""
                        ]
                    })
            ]
        return StoreReport(
            facts: facts, listings: listings,
            collections: statistics.collections.map { collection in
                CollectionStatistics(
                    name: collection.name, idField: collection.idField, documents: collection.documents,
                    bytes: collection.bytes,
                    indexes: collection.indexes.map {
                        IndexStatistics(
                            definition: $0.definition, state: $0.state, declared: $0.declared, entries: $0.entries,
                            bytes: $0.bytes)
                    })
            })
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
