import DataStoreCore
import Synchronization

/// At most `count` reads on the server at once: a read takes a slot before it takes a
/// connection, and a read that finds none free waits in line without holding a thread.
final class ReadSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var closed = false
    }

    private let state: Mutex<State>

    /// `count` slots (at least one).
    init(count: Int) { state = Mutex(State(free: max(1, count))) }

    /// Takes a slot if one is free, without waiting: the common case, so that a read that finds
    /// one pays for no suspension point.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.closed` once the store is closed.
    func tryAcquire() throws(DataStoreError) -> Bool {
        try state.withLock { state throws(DataStoreError) -> Bool in
            guard !state.closed else { throw Self.closedError }
            guard state.free > 0 else { return false }
            state.free -= 1
            return true
        }
    }

    /// Takes a slot, waiting for one when all are taken.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.closed` once the store is closed.
    func acquire() async throws {
        if try tryAcquire() { return }
        try await waitForSlot()
    }

    /// Waits in line for a slot, after ``tryAcquire()`` found none free.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.closed` once the store is closed.
    func waitForSlot() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                if state.free > 0 {
                    state.free -= 1
                    continuation.resume()
                } else {
                    state.waiting.append(continuation)
                }
                return false
            }
            if closed { continuation.resume(throwing: Self.closedError) }
        }
    }

    /// Gives a slot back: to the read waiting longest, if any.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    /// Ends waiting: reads waiting for a slot, and later ones, throw `.closed`.
    func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(throwing: Self.closedError) }
    }

    private static var closedError: DataStoreError { DataStoreError(.closed, "the PostgreSQL store is closed") }
}
