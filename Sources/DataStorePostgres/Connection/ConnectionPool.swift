import DataStoreCore
import Synchronization

/// The store's readers: connections made on demand, each lent to one call at a time.
final class ConnectionPool: Sendable {
    private let conninfo: String
    private let idle = Mutex<[Connection]>([])
    private let maxIdle: Int
    private let connectionsMade = Atomic<Int>(0)
    private let closed = Atomic<Bool>(false)
    /// At most `maxIdle` awaited reads at once (``awaitResult(_:_:what:)``).
    let slots: ReadSlots
    /// Awaited reads answered on the event thread, and those handed to a reader thread, for tests.
    let awaitedReads = Atomic<Int>(0)
    let threadReads = Atomic<Int>(0)

    /// Whether reads may be awaited on the event thread (``PostgresStore/Options/awaitedReads``).
    let awaitsReads: Bool
    /// How long an awaited read waits for its answer on the caller's thread (``PostgresStore/Options/callerPoll``).
    let callerPoll: Duration
    /// ``callerPoll`` in nanoseconds, to compare with a statement's last answer time.
    let callerPollNanoseconds: UInt64
    /// The bound on reads waiting on callers' threads at once (the process's, but for tests).
    let callerWaits: CallerWaits

    /// How long each connection waits for the server.
    let timeouts: ConnectionTimeouts

    init(
        conninfo: String, maxIdle: Int, awaitedReads: Bool = false, callerPoll: Duration = .zero,
        callerWaits: CallerWaits = .shared, timeouts: ConnectionTimeouts = ConnectionTimeouts()
    ) {
        self.conninfo = conninfo
        self.timeouts = timeouts
        self.maxIdle = maxIdle
        awaitsReads = awaitedReads
        self.callerPoll = callerPoll
        callerPollNanoseconds = callerPoll.saturatingNanoseconds
        self.callerWaits = callerWaits
        slots = ReadSlots(count: maxIdle)
    }

    /// Makes a connection to the store's server.
    func connect() throws(PostgresError) -> Connection {
        connectionsMade.add(1, ordering: .relaxed)
        return try Connection(conninfo, settings: Connection.plannerSettings, timeouts: timeouts)
    }

    /// How many connections the pool has made (the writer's first among them), for tests.
    var made: Int { connectionsMade.load(ordering: .relaxed) }

    /// Runs `body` on a pooled connection. A connection the server dropped is made again and
    /// `body` retried once; a second loss is the caller's `.network` error.
    /// `what` names the read in errors; it is made only when one is thrown.
    func read<R>(_ what: @autoclosure () -> String, _ body: (Connection) throws -> R) throws -> R {
        for attempt in 0..<2 {
            let connection: Connection
            do throws(PostgresError) {
                if let pooled = idle.withLock({ $0.popLast() }) {
                    connection = pooled
                } else {
                    connection = try connect()
                }
            } catch {
                throw DataStoreError.postgres(error, what())
            }
            do {
                let result = try body(connection)
                release(connection)
                return result
            } catch let error as PostgresError {
                if error.isUnavailable && attempt == 0 { continue }
                if connection.isHealthy {
                    if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                    release(connection)
                }
                throw DataStoreError.postgres(error, what())
            } catch {
                if connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                release(connection)
                throw error
            }
        }
        throw DataStoreError(.network, "PostgreSQL is unavailable while \(what())")
    }

    /// Takes a connection for a caller to hold (a context's snapshot), made when none is idle.
    func checkOut() throws(PostgresError) -> Connection {
        if let pooled = idle.withLock({ $0.popLast() }) { return pooled }
        return try connect()
    }

    /// Gives back a connection taken with ``checkOut()``, ending any transaction it holds.
    func checkIn(_ connection: Connection) {
        if connection.isHealthy && connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
        release(connection)
    }

    /// An idle connection, if one is open.
    func takeIdle() -> Connection? { idle.withLock { $0.popLast() } }

    /// Keeps `connection` for the next call, unless it is broken, in a transaction, surplus, or
    /// the pool closed.
    func release(_ connection: Connection) {
        guard connection.isHealthy, !connection.isInTransaction, !closed.load(ordering: .relaxed) else { return }
        idle.withLock { connections in
            if connections.count < maxIdle { connections.append(connection) }
        }
    }

    /// Closes every idle connection (and each lent one as it comes back); awaited reads not yet
    /// started throw `.closed`.
    func close() {
        closed.store(true, ordering: .relaxed)
        slots.close()
        idle.withLock { $0.removeAll() }
    }
}
