#if canImport(Glibc)
import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the package's `Mutex` in ThreadSanitizer builds.
///
/// `Synchronization.Mutex` on Linux waits on a futex inside `libswiftSynchronization`, which
/// ThreadSanitizer does not see, so TSan takes two accesses under one `Mutex` for a race. TSan
/// intercepts `pthread_mutex_lock` and `pthread_mutex_unlock`, so under this lock it sees the
/// order and reports only real races. Builds compiled with `-DTSAN_LOCKS`
/// (`Tests/Sanitizers/run.sh tsan`) name it `Mutex` in each module (`ThreadSanitizerLocks.swift`),
/// so call sites do not change; other builds never use it. It offers the part of `Mutex`'s API
/// the package calls: `init(_:)`, `withLock(_:)` and `withLockIfAvailable(_:)`.
package final class PthreadMutex<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` on `mutex`, which is allocated once and never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock holding `initialValue`.
    package init(_ initialValue: consuming Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result: ~Copyable, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, "pthread_mutex_lock failed: \(status)")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value if the lock is free now, and returns what it returns; `nil`
    /// without waiting when another thread holds it.
    package func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
