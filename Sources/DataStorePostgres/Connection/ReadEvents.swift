internal import CPostgres
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one thread of the process that waits for the results of reads in flight, so that a read
/// holds no thread while the server answers: the caller sends its statement and registers the
/// connection's socket with epoll (which needs no wake-up of this thread); this thread reads the
/// result as it arrives and resumes the caller when it is complete.
final class ReadEvents: Sendable {
    /// How a wait for a read's result ended.
    enum Outcome {
        /// The statement's first result, or `nil` when the connection was lost first.
        case answered(OpaquePointer?)
        /// The deadline passed first; the statement is still in flight.
        case timedOut
    }

    /// A read waiting for its result.
    private struct Waiter {
        let connection: Connection
        let continuation: CheckedContinuation<Handoff<Outcome>, Never>
        /// When the wait gives up, if ever.
        let deadline: ContinuousClock.Instant?
        /// Whether libpq still holds bytes of the statement to send.
        var flushing: Bool
        /// The statement's first result, once complete; any later ones are freed.
        var first: Handoff<OpaquePointer>? = nil
    }

    /// The process's event thread, started at the first read that waits.
    static let shared = ReadEvents()

    private let epoll: Int32
    private let waiters = Mutex<[Int32: Waiter]>([:])

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return }
        let thread = Thread { [self] in
            // Named from inside: on Linux a name given before `start()` never reaches the thread.
            Thread.current.name = "PG.events"
            serve()
        }
        thread.start()
    }

    /// The result of the statement just sent on `connection` (`flushing` when libpq could not yet
    /// send all of it; `first` its first result when the caller has read it already), `nil` when
    /// the connection was lost first, or ``Outcome/timedOut`` once `deadline` has passed; every
    /// further result of the statement is read and freed, so the connection is idle again when
    /// this answers.
    func result(
        of connection: Connection, flushing: Bool, first: Handoff<OpaquePointer>? = nil,
        until deadline: ContinuousClock.Instant? = nil
    ) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Handoff<Outcome>, Never>) in
            let socket = PQsocket(connection.handle)
            guard socket >= 0, epoll >= 0 else {
                if let first { PQclear(first.value) }
                return continuation.resume(returning: Handoff(.answered(nil)))
            }
            // Registered before the socket is armed: its event may come at once.
            waiters.withLock {
                $0[socket] = Waiter(
                    connection: connection, continuation: continuation, deadline: deadline, flushing: flushing,
                    first: first)
            }
            if !arm(socket, writing: flushing) { finish(socket, with: .answered(nil)) }
        }.value
    }

    /// How many reads are waiting for their results, for tests.
    var inFlight: Int { waiters.withLock { $0.count } }

    /// Arms `socket` for one event (readable, or writable while libpq has bytes to send).
    private func arm(_ socket: Int32, writing: Bool) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue | (writing ? EPOLLOUT.rawValue : 0)
        event.data.fd = socket
        // A socket stays registered, disarmed, between reads; a new one (or a reused number) is added.
        if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) == 0 { return true }
        return errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0
    }

    /// The thread's loop: reads what arrived for each socket that woke, resumes each read whose
    /// result is complete, and arms the others again.
    private func serve() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), nextExpiry())
            if count < 0 && errno == EINTR { continue }
            for event in events.prefix(Int(max(0, count))) { advance(event.data.fd) }
            expire()
        }
    }

    /// The milliseconds until the earliest deadline of a waiting read, rounded up (at most a
    /// second, so a read registered meanwhile with a shorter bound is seen soon), or -1.
    private func nextExpiry() -> Int32 {
        let earliest = waiters.withLock { $0.values.compactMap(\.deadline).min() }
        guard let earliest else { return -1 }
        let (seconds, attoseconds) = ContinuousClock.now.duration(to: earliest).components
        if seconds < 0 { return 0 }
        return Int32(min(1_000, seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    /// Ends the waits whose deadline has passed: their statements are still in flight, so their
    /// connections are abandoned by the callers.
    private func expire() {
        let now = ContinuousClock.now
        let expired = waiters.withLock { $0.filter { $0.value.deadline.map { $0 <= now } ?? false }.map(\.key) }
        for socket in expired {
            var event = epoll_event()
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, &event)
            finish(socket, with: .timedOut)
        }
    }

    /// Moves the read on `socket` along: sends what is left, reads what arrived, takes the
    /// results libpq has complete, and resumes the read once the statement is done (or the
    /// connection lost); otherwise arms the socket again.
    private func advance(_ socket: Int32) {
        guard var waiter = waiters.withLock({ $0[socket] }) else { return }
        let handle = waiter.connection.handle
        if waiter.flushing {
            let flushed = PQflush(handle)
            if flushed < 0 { return finish(socket, with: .answered(nil)) }
            waiter.flushing = flushed == 1
        }
        guard PQconsumeInput(handle) == 1 else { return finish(socket, with: .answered(nil)) }
        // PQgetResult blocks only while libpq is busy: each call here returns at once.
        while !waiter.flushing && PQisBusy(handle) == 0 {
            guard let result = PQgetResult(handle) else { return finish(socket, with: .answered(waiter.first?.value)) }
            if waiter.first == nil { waiter.first = Handoff(result) } else { PQclear(result) }
        }
        waiters.withLock { $0[socket] = waiter }
        if !arm(socket, writing: waiter.flushing) { finish(socket, with: .answered(nil)) }
    }

    /// Resumes the read on `socket` with `outcome`: from here on its connection is the caller's.
    private func finish(_ socket: Int32, with outcome: Outcome) {
        guard let waiter = waiters.withLock({ $0.removeValue(forKey: socket) }) else { return }
        if case .answered(nil) = outcome, let first = waiter.first { PQclear(first.value) }
        if case .timedOut = outcome, let first = waiter.first { PQclear(first.value) }
        waiter.continuation.resume(returning: Handoff(outcome))
    }
}
