import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process building an index, as `_meta` records it, so that another process waits for a
/// live build instead of starting its own, and takes over the build of one that died.
///
/// LMDB's reader table cannot tell: a process may hold the store open with no read
/// transaction, hence no slot. So a process is named by its id and its start time (Linux's
/// `/proc/<pid>/stat`, so a reused id is not mistaken for it), and each open of a store by a
/// random token (so another store object of the same process is not mistaken for it).
struct IndexBuildOwner: Codable, Sendable, Equatable {
    var pid: Int32
    /// The process's start time in clock ticks after boot (0 when it could not be read).
    var started: UInt64
    var token: String

    /// A new owner for this process's open of a store.
    static func current() -> IndexBuildOwner {
        let pid = getpid()
        return IndexBuildOwner(pid: pid, started: processStart(pid) ?? 0, token: UUID().uuidString)
    }

    /// Whether the build this names may still be going on, as seen by the open `me`: its own
    /// builds are, those of another open in this process are not (one open per path runs at a
    /// time), and another process's are while it lives and is not a zombie.
    func isAlive(seenBy me: IndexBuildOwner) -> Bool {
        if token == me.token { return true }
        if pid == me.pid { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        guard let status = Self.status(pid) else { return false }
        // A zombie builds nothing; a start time that differs is another process under a reused id.
        return status.state != "Z" && (started == 0 || status.started == started)
    }

    private static func processStart(_ pid: Int32) -> UInt64? { status(pid)?.started }

    /// The state letter and start time in `/proc/<pid>/stat` (fields 3 and 22), `nil` when the
    /// process is gone. The command name (field 2) may hold spaces and parentheses, so fields
    /// are counted after its last `)`.
    private static func status(_ pid: Int32) -> (state: Character, started: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let started = UInt64(fields[19]) else { return nil }
        return (state, started)
    }
}
