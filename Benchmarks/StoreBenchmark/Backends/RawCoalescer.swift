// A simple group-commit coalescer over raw LMDB: the yardstick for DataStoreKit's writer.
// Submitters queue one message each and block; one thread takes everything queued, writes it in one
// transaction, commits (one durable commit), and wakes every submitter of the batch.
import Dispatch
import Foundation
import Synchronization

/// A raw backend the coalescer can write through: one durable write transaction per `write`.
protocol RawSaving: Sendable {
    func write(_ body: (OpaquePointer) throws -> Void) throws
    func insert(_ message: Message, in transaction: OpaquePointer) throws
}

final class RawCoalescer: Sendable {
    private struct Queue {
        var requests: [Message] = []
        var waiters: [DispatchSemaphore] = []
        var stopped = false
        var batches = 0
        var committed = 0
        var failures = 0
    }

    private let backend: any RawSaving
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(backend: any RawSaving) {
        self.backend = backend
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Queues `message` and returns once the batch carrying it has committed.
    func save(_ message: Message) {
        let done = DispatchSemaphore(value: 0)
        queue.withLock { queue in
            queue.requests.append(message)
            queue.waiters.append(done)
        }
        wake.signal()
        done.wait()
    }

    /// Batches committed, messages committed, and failures so far.
    var counters: (batches: Int, committed: Int, failures: Int) {
        queue.withLock { ($0.batches, $0.committed, $0.failures) }
    }

    func stop() {
        queue.withLock { $0.stopped = true }
        wake.signal()
        finished.wait()
    }

    private func run() {
        // Named so the report can read this thread's CPU time from /proc.
        Thread.current.name = "RawCoalescer"
        while true {
            wake.wait()
            let (batch, waiters, stopped) = queue.withLock { queue in
                defer {
                    queue.requests.removeAll(keepingCapacity: true)
                    queue.waiters.removeAll(keepingCapacity: true)
                }
                return (queue.requests, queue.waiters, queue.stopped)
            }
            if !batch.isEmpty {
                var ok = true
                do {
                    try backend.write { transaction in
                        for message in batch { try backend.insert(message, in: transaction) }
                    }
                } catch {
                    ok = false
                }
                queue.withLock { queue in
                    queue.batches += 1
                    if ok { queue.committed += batch.count } else { queue.failures += batch.count }
                }
                for waiter in waiters { waiter.signal() }
            }
            if stopped { break }
        }
        finished.signal()
    }
}
