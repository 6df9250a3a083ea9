internal import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension Environment {
    /// The process-wide table of open environments, keyed by canonical path, which keeps each
    /// path open at most once.
    final class Registry: Sendable {
        static let shared = Registry()

        private final class Entry: @unchecked Sendable {
            // @unchecked Sendable: `environment` is read and written only under `entries`' lock.
            weak var environment: Environment?
            init(_ environment: Environment) { self.environment = environment }
        }

        private let entries = Mutex<[String: Entry]>([:])

        /// Returns the open environment at `path` when `compatible` accepts it, or opens one.
        func environment(
            at path: String,
            open: () throws(LMDBError) -> Environment,
            compatible: (Environment) -> Bool
        ) throws(LMDBError) -> Environment {
            while true {
                let outcome: Result<Environment, LMDBError>? = entries.withLock { entries in
                    if let entry = entries[path] {
                        guard let existing = entry.environment else {
                            // The last reference is gone and `deinit` is closing it: wait for the
                            // close to finish so the path is never open twice.
                            return nil
                        }
                        guard compatible(existing) else {
                            return .failure(LMDBError(.alreadyOpen, context: "opening \(path)"))
                        }
                        return .success(existing)
                    }
                    do throws(LMDBError) {
                        let environment = try open()
                        entries[path] = Entry(environment)
                        return .success(environment)
                    } catch {
                        return .failure(error)
                    }
                }
                switch outcome {
                case .success(let environment): return environment
                case .failure(let error): throw error
                case nil: sched_yield()
                }
            }
        }

        /// Closes `environment`'s handle and forgets its path, under the lock so that a concurrent
        /// `open` of the same path waits for the close.
        func close(_ environment: Environment) {
            entries.withLock { entries in
                mdb_env_close(environment.handle)
                if let entry = entries[environment.path], entry.environment == nil {
                    entries[environment.path] = nil
                }
            }
        }
    }
}
