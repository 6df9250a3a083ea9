import DataStoreCore
import Foundation
import Synchronization

extension ConnectionPool {
    /// Runs `sql` with `parameters` on an idle pooled connection that has it prepared, holding no
    /// thread while the server answers, and returns what `answer` makes of the result (when the
    /// store awaits reads; else `otherwise` on a reader thread). Whatever
    /// that path cannot finish — no idle connection, the statement not yet prepared on it, the
    /// connection lost or the statement stale, `answer` returning `nil` (more than one statement
    /// needed) — is done by `otherwise` on one of `readers`, whose blocking calls prepare,
    /// reconnect and retry. At most as many reads as the pool keeps connections run at once.
    /// - Throws: what `answer` or `otherwise` throws; ``/DataStoreCore/DataStoreError`` `.closed`
    ///   once the store is closed; `.storage` for a statement the server refused.
    func awaitRead<R>(
        _ sql: SQLText, _ parameters: [SQLParameter], on readers: ReaderThreads, what: () -> String,
        answer: (QueryResult) throws -> R?, otherwise: @escaping @Sendable () throws -> R
    ) async throws -> R {
        guard awaitsReads else {
            threadReads.add(1, ordering: .relaxed)
            return try await readers.run(otherwise)
        }
        if try !slots.tryAcquire() { try await slots.acquire() }
        defer { slots.release() }
        if let connection = takeIdle() {
            if let (name, waits) = connection.statements.useAwaited(sql, windowNanoseconds: callerPollNanoseconds) {
                let result: QueryResult?
                do throws(PostgresError) {
                    let started = DispatchTime.now().uptimeNanoseconds
                    switch try connection.executePreparedHere(
                        name, parameters, pollingFor: waits ? callerPoll : .zero, gate: callerWaits)
                    {
                    case .answered(let answer): result = answer
                    case .handedOver(let flushing, let first):
                        result = try await connection.awaitAnswer(flushing: flushing, first: first)
                    }
                    connection.statements.noteAnswer(
                        of: sql, nanoseconds: DispatchTime.now().uptimeNanoseconds &- started)
                } catch {
                    // A lost connection is dropped and a stale statement forgotten: the reader thread redoes both.
                    if Connection.isStale(error) { connection.statements.forget(sql) }
                    if !error.isUnavailable { release(connection) }
                    if !error.isUnavailable && !Connection.isStale(error) {
                        throw DataStoreError.postgres(error, what())
                    }
                    result = nil
                }
                if let result {
                    let answered: R?
                    do { answered = try answer(result) } catch {
                        release(connection)
                        throw error
                    }
                    release(connection)
                    if let answered {
                        awaitedReads.add(1, ordering: .relaxed)
                        return answered
                    }
                }
            } else {
                release(connection)
            }
        }
        threadReads.add(1, ordering: .relaxed)
        return try await readers.run(otherwise)
    }
}
