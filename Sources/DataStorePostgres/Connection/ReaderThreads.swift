import DataStoreCore
import Dispatch
import Foundation
import Synchronization

/// The threads a ``PostgresStore``'s reads run on, so that libpq's blocking calls never hold a
/// thread of Swift's cooperative pool: each thread takes one queued read at a time and runs it
/// on a pooled connection, so at most `count` reads reach the server at once and the rest wait
/// in line without a thread each.
final class ReaderThreads: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var closed = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let count: Int
    /// The store's read slots, which a read holds while it runs here as an awaited read holds one
    /// while it waits: so that the two paths together keep to the store's `readers`.
    private let slots: ReadSlots?
    /// Released by each read's thread before it resumes its caller, acquired by the caller after:
    /// a continuation resumed from a thread of our own is a hand-off ThreadSanitizer does not see.
    private let handoffs = Atomic<Int>(0)

    /// Starts `count` threads (at least one), whose reads each hold one of `slots`, when given.
    init(count: Int, slots: ReadSlots? = nil) {
        self.count = max(1, count)
        self.slots = slots
        for number in 0..<self.count {
            // Named from inside: on Linux a name given before `start()` never reaches the thread.
            let thread = Thread { [self] in
                Thread.current.name = "PG.reader\(number)"
                serve()
            }
            thread.start()
        }
    }

    /// Runs `body` on a reader thread and returns what it returns, holding a read slot meanwhile.
    /// - Throws: what `body` throws; ``/DataStoreCore/DataStoreError`` `.closed` once the store is closed.
    func run<R>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        if let slots {
            if try !slots.tryAcquire() { try await slots.waitForSlot() }
        }
        defer { slots?.release() }
        return try await runHoldingSlot(body)
    }

    /// ``run(_:)`` once its slot, if any, is held.
    private func runHoldingSlot<R>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        defer { _ = handoffs.load(ordering: .acquiring) }
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Handoff<R>, any Error>) in
            let accepted = queue.withLock { queue -> Bool in
                guard !queue.closed else { return false }
                queue.jobs.append { [self] in
                    let result = Result { Handoff(try body()) }
                    handoffs.add(1, ordering: .releasing)
                    continuation.resume(with: result)
                }
                return true
            }
            if accepted {
                wake.signal()
            } else {
                continuation.resume(throwing: DataStoreError(.closed, "the PostgreSQL store is closed"))
            }
        }.value
    }

    /// Lets the threads end once the reads queued have run; later reads throw `.closed`.
    func close() {
        let wasOpen = queue.withLock { queue in
            defer { queue.closed = true }
            return !queue.closed
        }
        if wasOpen { for _ in 0..<count { wake.signal() } }
    }

    /// One thread's loop: runs queued reads until the store closes and none is left.
    private func serve() {
        while true {
            wake.wait()
            let (job, finished) = queue.withLock { queue in
                queue.jobs.isEmpty ? (nil, queue.closed) : (queue.jobs.removeFirst(), false)
            }
            if finished { return }
            job?()
        }
    }
}
