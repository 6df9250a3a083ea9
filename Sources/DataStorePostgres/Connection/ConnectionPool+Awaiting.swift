import DataStoreCore
import Foundation
import Synchronization

extension ConnectionPool {
    /// The result of `sql` with `parameters`, run on an idle pooled connection that has it
    /// prepared without holding a thread while the server answers beyond the caller's window, or
    /// `nil` when this path cannot answer: reads not awaited, no idle connection, the statement not
    /// yet prepared on it, the connection lost or the statement stale. The caller then reads on a
    /// reader thread, whose blocking calls prepare, reconnect and retry, and counts the read in
    /// ``threadReads`` (an answer here in ``awaitedReads``). At most as many reads as the pool keeps
    /// connections run at once. Not generic, and the caller makes its answer from the result, so
    /// that a read of one object pays for no closure, nor the metadata of an optional of its type.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.closed` once the store is closed; `.storage`
    ///   for a statement the server refused.
    func awaitResult(_ sql: SQLText, _ parameters: [SQLParameter], what: () -> String) async throws -> QueryResult? {
        guard awaitsReads else { return nil }
        if try !slots.tryAcquire() { try await slots.waitForSlot() }
        defer { slots.release() }
        guard let connection = takeIdle() else { return nil }
        guard let (name, waits) = connection.statements.useAwaited(sql, windowNanoseconds: callerPollNanoseconds)
        else {
            release(connection)
            return nil
        }
        do throws(PostgresError) {
            let started = DispatchTime.now().uptimeNanoseconds
            let result: QueryResult
            switch try connection.executePreparedHere(
                name, parameters, pollingFor: waits ? callerPoll : .zero, gate: callerWaits)
            {
            case .answered(let answer): result = answer
            case .handedOver(let flushing, let first):
                result = try await connection.awaitAnswer(flushing: flushing, first: first)
            }
            connection.statements.noteAnswer(of: sql, nanoseconds: DispatchTime.now().uptimeNanoseconds &- started)
            // The result is libpq's own copy: the connection goes back before it is read.
            release(connection)
            return result
        } catch {
            // A lost connection is dropped and a stale statement forgotten: the reader thread redoes both.
            if Connection.isStale(error) { connection.statements.forget(sql) }
            if !error.isUnavailable { release(connection) }
            if !error.isUnavailable && !Connection.isStale(error) {
                throw DataStoreError.postgres(error, what())
            }
            return nil
        }
    }
}
