import DataStoreCore
@testable public import DataStoreKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A document of the schema workload: `group` is the field other processes index.
public struct SchemaDocument: Codable, Sendable, Equatable {
    /// `<prefix>-<phase>-<n>`.
    public var id: String
    /// What the indexes under test order by: 0 to 4, moved by updates.
    public var group: Int
    /// A second field, for an index redefined to cover two fields.
    public var n: Int

    public init(id: String, group: Int, n: Int) {
        self.id = id
        self.group = group
        self.n = n
    }
}

/// The collection another process changes the indexes of, and what it checks.
public enum SchemaWorkload {
    /// The collection every schema mode writes.
    public static let collectionName = "schema_docs"

    /// Opens (or creates) the collection, declaring no index and keeping any stored one.
    public static func collection(in store: DataStore) async throws -> StoreCollection<SchemaDocument> {
        try await store.collection(SchemaDocument.self, name: collectionName, idField: "id")
    }

    /// The groups whose query answers are compared with a full scan.
    public static let groups = 0..<5

    /// Which groups' answers through `params(group)` differ from a scan of every document.
    /// The groups are queried before the scan: a scan plans, and planning would find out about a
    /// changed index before a compiled point query had to.
    public static func mismatchedGroups(in items: StoreCollection<SchemaDocument>) throws -> [Int] {
        let found = try groups.map { group in
            try items.query(params: ["group": .int(Int64(group))], options: nil).map(\.id).sorted()
        }
        let all = try items.query(params: nil, options: nil)
        return groups.filter { group in found[group] != all.filter { $0.group == group }.map(\.id).sorted() }
    }
}

extension CrashHelper {
    /// `schema-writer <dir> --phases P --per-phase N`: opens the collection once, then in each
    /// phase compares its queries with a scan (`BEFORE <k> <mismatched groups or ok>`), adds N
    /// documents, moves some earlier ones to another group and removes a few, compares again
    /// (`PHASE <k> …`), and waits for the file `<dir>.phase-<k+1>` before the
    /// next phase (the test changes the indexes in between).
    static func schemaWriter(path: String, options: Options) async throws {
        let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
        let items = try await SchemaWorkload.collection(in: store)
        let phases = options.int("--phases") ?? 4
        let perPhase = options.int("--per-phase") ?? 20
        emit("READY")
        for phase in 0..<phases {
            if phase > 0 {
                await waitForFile("\(path).phase-\(phase)")
                // Before any write of its own: only the read finds out that the indexes changed.
                let mismatched = try SchemaWorkload.mismatchedGroups(in: items)
                emit("BEFORE \(phase) " + (mismatched.isEmpty ? "ok" : "mismatched \(mismatched)"))
            }
            for n in 0..<perPhase {
                let id = "a-\(phase)-\(n)"
                _ = try await items.add(object: SchemaDocument(id: id, group: (phase + n) % 5, n: n))
                if phase > 0, n % 3 == 0 {
                    let moved = "a-\(phase - 1)-\(n)"
                    _ = try await items.put(
                        id: .string(moved), object: SchemaDocument(id: moved, group: (n + 2) % 5, n: n))
                }
                if phase > 0, n % 5 == 1 { _ = try await items.remove(id: .string("a-\(phase - 1)-\(n)")) }
            }
            let mismatched = try SchemaWorkload.mismatchedGroups(in: items)
            emit("PHASE \(phase) " + (mismatched.isEmpty ? "ok" : "mismatched \(mismatched)"))
        }
        store.close()
    }

    /// `declare-index <dir> --name N [--pause-after B]`: declares the index `N` on `group` and
    /// prints `DECLARED builds=<builds this process ran>`. With `--pause-after`, the build appends
    /// in small batches and stops for good after batch `B`, printing `PAUSED` (the test kills it).
    static func declareIndex(path: String, options: Options) async throws {
        let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
        _ = try await SchemaWorkload.collection(in: store)
        if let pauseAfter = options.int("--pause-after") {
            store.indexBuildSettings.withLock { settings in
                settings.batchBytes = 4_096
                settings.pause = { stage in
                    guard stage == .appended(pauseAfter) else { return }
                    emit("PAUSED")
                    while true { try await Task.sleep(nanoseconds: 1_000_000_000) }
                }
            }
        }
        let name = options.string("--name") ?? "group"
        try await store.addIndex(IndexDefinition(name, fields: ["group"]), to: SchemaWorkload.collectionName)
        emit("DECLARED builds=\(store.indexBuildsRun.load(ordering: .relaxed))")
        store.close()
    }

    /// `churn <dir> --count N --go FILE`: once `FILE` exists, makes N rounds of writes to the
    /// seeded documents `s-0…` — an insert, an update that moves a document to another group, and
    /// every fourth round a removal — printing `WROTE <rounds>` every 10 rounds, then `DONE`.
    static func churn(path: String, options: Options) async throws {
        let store = try DataStore.open(path: path, options: DataStore.Options(durability: .none))
        let items = try await SchemaWorkload.collection(in: store)
        let count = options.int("--count") ?? 100
        emit("READY")
        await waitForFile(options.string("--go") ?? "\(path).go")
        for round in 0..<count {
            _ = try await items.add(object: SchemaDocument(id: "c-\(round)", group: round % 5, n: round))
            let moved = "s-\(round * 7)"
            _ = try await items.put(
                id: .string(moved), object: SchemaDocument(id: moved, group: (round + 3) % 5, n: round))
            if round % 4 == 0 { _ = try await items.remove(id: .string("s-\(round * 7 + 1)")) }
            if (round + 1) % 10 == 0 { emit("WROTE \(round + 1)") }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        emit("DONE")
        store.close()
    }

    /// Polls for `path` to exist.
    private static func waitForFile(_ path: String) async {
        while access(path, F_OK) != 0 { try? await Task.sleep(nanoseconds: 5_000_000) }
    }
}
