/// The named prepared statements of one connection, keyed by their SQL text, at most `capacity`
/// of them: the least recently used is given up to make room for a new one.
///
/// A statement is prepared once per connection, so each later run skips the server's parsing
/// and planning; a new session (a reconnect) starts with none.
struct StatementCache {
    private struct Entry {
        var name: String
        var lastUse: UInt64
        /// How long its last awaited run took, from sending to the caller holding the answer (0:
        /// none yet).
        var lastAnswerNanoseconds: UInt64 = 0
        /// Awaited runs handed over at once since one last waited on its caller.
        var runsWithoutWait = 0
    }

    /// A statement whose last answer came after the caller's window is still waited for on every
    /// this-many-th run: a run handed over at once is timed with the hop to the event thread and
    /// back, which could otherwise keep a statement quick again counted slow for good.
    static let waitAgainEvery = 8

    /// The most statements kept.
    let capacity: Int
    private var entries: [SQLText: Entry] = [:]
    private var clock: UInt64 = 0
    private var nextNumber = 0

    /// A cache of at most `capacity` statements (at least one).
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// How many statements are prepared.
    var count: Int { entries.count }

    /// The name `sql` is prepared under, marked as just used, or `nil` when it is not prepared.
    mutating func name(of sql: SQLText) -> String? {
        clock += 1
        // The text's hash is kept with it: the lookup's index is reused to mark the entry used.
        guard let index = entries.index(forKey: sql) else { return nil }
        entries.values[index].lastUse = clock
        return entries.values[index].name
    }

    /// The name `sql` is prepared under, marked as just used, and whether an awaited run of it
    /// waits for its answer on the caller's thread for a window of `windowNanoseconds`: unless
    /// its last answer came later than that (then only every ``waitAgainEvery``-th run does);
    /// `nil` when it is not prepared.
    mutating func useAwaited(_ sql: SQLText, windowNanoseconds: UInt64) -> (name: String, waits: Bool)? {
        clock += 1
        guard let index = entries.index(forKey: sql) else { return nil }
        entries.values[index].lastUse = clock
        var waits = true
        if entries.values[index].lastAnswerNanoseconds > windowNanoseconds {
            entries.values[index].runsWithoutWait += 1
            waits = entries.values[index].runsWithoutWait >= Self.waitAgainEvery
        }
        if waits { entries.values[index].runsWithoutWait = 0 }
        return (entries.values[index].name, waits)
    }

    /// Records how long an awaited run of `sql` took, if it is still prepared.
    mutating func noteAnswer(of sql: SQLText, nanoseconds: UInt64) {
        guard let index = entries.index(forKey: sql) else { return }
        entries.values[index].lastAnswerNanoseconds = max(1, nanoseconds)
    }

    /// A fresh name for `sql`, not yet recorded, and the name to deallocate first when the cache
    /// is full.
    mutating func reserve() -> (name: String, evicted: String?) {
        nextNumber += 1
        let name = "dsk_p\(nextNumber)"
        guard entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })
        else {
            return (name, nil)
        }
        entries[oldest.key] = nil
        return (name, oldest.value.name)
    }

    /// Records that `sql` is prepared as `name`.
    mutating func insert(_ sql: SQLText, name: String) {
        clock += 1
        entries[sql] = Entry(name: name, lastUse: clock)
    }

    /// Forgets `sql` (its statement is gone or unusable).
    mutating func forget(_ sql: SQLText) { entries[sql] = nil }

    /// Forgets every statement (a new session has none).
    mutating func removeAll() { entries.removeAll() }
}
