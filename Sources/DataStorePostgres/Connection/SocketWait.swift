internal import CPostgres
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A wait of bounded length for one connection's socket to become readable, on the caller's
/// thread: an epoll instance of the connection's own, since `poll` counts only whole
/// milliseconds and `ppoll` is not in Glibc's Swift module.
///
/// Used by one thread at a time, as its connection is.
final class SocketWait {
    private let epoll: Int32
    /// The socket registered, or -1: a reconnect closes the old one, which epoll then forgets.
    private var registered: Int32 = -1

    /// A wait, or `nil` when the system has no epoll instance to give.
    init?() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        if epoll < 0 { return nil }
    }

    deinit { close(epoll) }

    /// Forgets the registered socket (the connection is made again, perhaps on the same number).
    func reset() {
        if registered >= 0 { _ = epoll_ctl(epoll, EPOLL_CTL_DEL, registered, nil) }
        registered = -1
    }

    /// Whether `socket` has bytes to read, waiting at most `nanoseconds` for them; `false` when
    /// the time ran out or the wait failed (the caller then waits elsewhere, unbounded).
    ///
    /// The corresponding C function is `epoll_pwait2`, or `epoll_wait` with the time rounded up
    /// to whole milliseconds where the kernel lacks it (before Linux 5.11, and under Valgrind).
    func readable(_ socket: Int32, within nanoseconds: Int64) -> Bool {
        guard nanoseconds > 0, register(socket) else { return false }
        var event = epoll_event()
        // A signal cuts a wait short (-1, EINTR): the caller's deadline decides whether to wait again.
        if !Self.lacksPreciseWait.load(ordering: .relaxed) {
            var timeout = timespec(
                tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            let count = epoll_pwait2(epoll, &event, 1, &timeout, nil)
            if count >= 0 || errno != ENOSYS { return count > 0 }
            Self.lacksPreciseWait.store(true, ordering: .relaxed)
        }
        let milliseconds = Int32(clamping: (nanoseconds + 999_999) / 1_000_000)
        return epoll_wait(epoll, &event, 1, milliseconds) > 0
    }

    /// Whether the kernel has answered `epoll_pwait2` with `ENOSYS`.
    private static let lacksPreciseWait = Atomic<Bool>(false)

    /// Registers `socket` for readability (level-triggered), unless it is the one registered.
    private func register(_ socket: Int32) -> Bool {
        if socket == registered { return true }
        reset()
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = socket
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else { return false }
        registered = socket
        return true
    }
}
