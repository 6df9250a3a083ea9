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
    }

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

    /// The name `sql` is prepared under and how long its last awaited run took (0: none yet),
    /// marked as just used; `nil` when it is not prepared.
    mutating func use(_ sql: SQLText) -> (name: String, lastAnswerNanoseconds: UInt64)? {
        clock += 1
        guard let index = entries.index(forKey: sql) else { return nil }
        entries.values[index].lastUse = clock
        return (entries.values[index].name, entries.values[index].lastAnswerNanoseconds)
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
