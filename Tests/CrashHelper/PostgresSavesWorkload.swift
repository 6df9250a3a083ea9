import DataStoreCore
import DataStoreKit
import DataStorePostgres
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension CrashHelper {
    /// `postgres-saves`: `--workers` tasks (4) save units of work on the PostgreSQL store at the
    /// URL until the file `--stop` exists (or for `--seconds`, 300 at most), whatever the server
    /// does meanwhile. Each unit, in a context that
    /// detects conflicts, reads the counter `hot-<n % 4>` of collection `items` and writes it one
    /// higher, and adds three documents sharing a tag. Prints, the moment it is known,
    /// `ACK <tag> <hot> <unix time>` or `ERR <tag> <hot> <code>`.
    static func postgresSaves(url: String, options: Options) async throws {
        var storeOptions = PostgresStore.Options(readers: 2)
        storeOptions.connectTimeout = .seconds(2)
        storeOptions.statementTimeout = .seconds(5)
        storeOptions.saveTimeout = .seconds(20)
        let store = try await PostgresStore.open(url: url, options: storeOptions)
        let items = try await store.collection(
            "items", mapping: ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 }),
            indexes: [IndexDefinition("tag")])
        let end = Date().addingTimeInterval(Double(options.int("--seconds") ?? 300))
        let stop = options.string("--stop") ?? "/nonexistent"
        let pid = getpid()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<(options.int("--workers") ?? 4) {
                group.addTask {
                    var n = 0
                    while Date() < end && !FileManager.default.fileExists(atPath: stop) {
                        let tag = "\(pid)-\(worker)-\(n)"
                        let hot = "hot-\(n % 4)"
                        n += 1
                        do {
                            let context = store.newContext()
                            let counter = try context.get(id: .string(hot), from: items)
                            let next = (counter["n"]?.intValue ?? 0) + 1
                            _ = try context.put(
                                id: .string(hot), object: ["id": .string(hot), "n": .int(next)], in: items)
                            for part in 0..<3 {
                                _ = try context.add(["id": .string("\(tag)/\(part)"), "tag": .string(tag)], to: items)
                            }
                            try await context.save()
                            emit("ACK \(tag) \(hot) \(Date().timeIntervalSince1970)")
                        } catch let error as DataStoreError {
                            emit("ERR \(tag) \(hot) \(error.code)")
                            if error.code != .conflict { try? await Task.sleep(for: .milliseconds(100)) }
                        } catch {
                            emit("ERR \(tag) \(hot) other")
                        }
                    }
                }
            }
        }
        store.close()
        emit("DONE")
    }
}
