/// What the writer's queue holds.
struct WriterState: Sendable {
    var pending: [WriterJob] = []
    var closed = false
    var batches = 0
    var changeSets = 0
    /// How many change sets the writer has taken into batches (committed or not), for tests.
    var taken = 0
    /// The ticket of the next change set queued.
    var nextTicket: UInt64 = 0

    /// The next batch: change sets and transactions up to `limit`, or one exclusive job alone.
    static func takeBatch(_ pending: inout [WriterJob], limit: Int) -> [WriterJob] {
        guard let first = pending.first else { return [] }
        if first.runsAlone { return [pending.removeFirst()] }
        var count = 0
        while count < min(limit, pending.count), !pending[count].runsAlone { count += 1 }
        defer { pending.removeFirst(count) }
        return Array(pending[..<count])
    }

    /// Removes the change set queued under `ticket`; `false` when it is no longer queued (being
    /// committed, or answered).
    mutating func withdraw(_ ticket: UInt64) -> Bool {
        let position = pending.firstIndex { $0.ticket == ticket }
        guard let position else { return false }
        pending.remove(at: position)
        return true
    }
}
