internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

extension Environment {
    /// Facts about the environment as a whole.
    public struct Info: Sendable, Hashable {
        /// The current size of the memory map in bytes.
        public let mapSize: Int
        /// The number of the last page used; `(lastPageNumber + 1) * pageSize` bytes are in use.
        public let lastPageNumber: Int
        /// The id of the last committed write transaction.
        public let lastTransactionID: Int
        /// The size of the reader table.
        public let maxReaders: Int
        /// Reader slots in use, across every process (including reset, reusable ones).
        public let readersInUse: Int
    }

    /// Map size, last page and transaction, and reader slots.
    ///
    /// The corresponding C function is `mdb_env_info`.
    public func info() throws(LMDBError) -> Info {
        var info = MDB_envinfo()
        try check(mdb_env_info(handle, &info), "reading info of \(path)")
        return Info(
            mapSize: info.me_mapsize, lastPageNumber: info.me_last_pgno,
            lastTransactionID: info.me_last_txnid, maxReaders: Int(info.me_maxreaders),
            readersInUse: Int(info.me_numreaders))
    }

    /// Statistics of the environment's main database (which lists the named databases).
    ///
    /// The corresponding C function is `mdb_env_stat`.
    public func statistics() throws(LMDBError) -> Statistics {
        var stat = MDB_stat()
        try check(mdb_env_stat(handle, &stat), "reading statistics of \(path)")
        return Statistics(stat)
    }

    /// The bytes of the data file in use: `(lastPageNumber + 1) × pageSize`.
    public func bytesInUse() throws(LMDBError) -> Int {
        try (info().lastPageNumber + 1) * statistics().pageSize
    }

    /// Clears reader slots left by processes that died, and returns how many it cleared.
    ///
    /// The corresponding C function is `mdb_reader_check`.
    @discardableResult
    public func clearStaleReaders() throws(LMDBError) -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead), "checking readers of \(path)")
        return Int(dead)
    }

    /// Flushes written data to disk. Needed only with `.noSync` or `.noMetaSync`, or to make the
    /// last commits durable after turning those on.
    ///
    /// The corresponding C function is `mdb_env_sync`.
    /// - Parameter force: sync even when the environment was opened with `.noSync`.
    public func sync(force: Bool = true) throws(LMDBError) {
        try check(mdb_env_sync(handle, force ? 1 : 0), "syncing \(path)")
    }

    /// Turns the given flags on or off for this process (only `.noSync` and `.noMetaSync` may
    /// change while open).
    ///
    /// The corresponding C function is `mdb_env_set_flags`.
    public func setFlags(_ flags: Flags, enabled: Bool) throws(LMDBError) {
        try check(mdb_env_set_flags(handle, flags.rawValue, enabled ? 1 : 0), "setting flags of \(path)")
    }

    /// Writes a consistent copy of the environment into the directory `destination`, which
    /// must exist and hold no environment. With `compact`, free pages are omitted and the copy
    /// is renumbered, so it can be much smaller. Writers may go on during the copy.
    ///
    /// The corresponding C function is `mdb_env_copy2`.
    /// - Complexity: O(size of the data file).
    public func copy(to destination: String, compact: Bool = false) throws(LMDBError) {
        try check(
            mdb_env_copy2(handle, destination, compact ? UInt32(MDB_CP_COMPACT) : 0),
            "copying \(path) to \(destination)")
    }

    /// Grows (or shrinks, down to the space in use) the memory map, and so the largest the data
    /// file may become.
    ///
    /// lmdb.h allows this only "if no transactions are active in this process": this holds new
    /// transactions back, asks registered read transactions to yield (see
    /// ``beginRead(registering:)``), and waits at most `timeout` for the live ones to end. The
    /// new size is persisted for other processes by the next write transaction.
    ///
    /// The corresponding C function is `mdb_env_set_mapsize`.
    /// - Throws: ``LMDBError`` `.mapResizeBlocked` naming the transactions still live after
    ///   `timeout` (each registered one by its label, age and snapshot), and at once while one
    ///   that blocked the previous resize and cannot yield is still live.
    public func setMapSize(_ bytes: Int, waitingAtMost timeout: Duration = .seconds(2)) throws(LMDBError) {
        try gate.withNoLiveTransactions(waitingAtMost: timeout, resizingTo: bytes) { holders, others, waited in
            LMDBError(
                .mapResizeBlocked,
                context: resizeBlockedMessage(bytes, holders: holders, others: others, waited: waited))
        } _: { () throws(LMDBError) in
            try check(mdb_env_set_mapsize(handle, bytes), "setting map size of \(path) to \(bytes)")
        }
    }

    /// "resizing the map of P from X to Y bytes needs every read in this process to end; still
    /// live after waiting 2.0 s: a Context's snapshot opened 3.1 s ago at commit 7 (8 commits
    /// behind); 1 other transaction(s) of this process (short reads)".
    private func resizeBlockedMessage(_ bytes: Int, holders: [TransactionGate.Holder], others: Int, waited: Duration)
        -> String
    {
        let current = (try? info()) ?? nil
        let from = current.map { "from \($0.mapSize) " } ?? ""
        let now = ContinuousClock.now
        var blockers = holders.map { holder in
            let behind = current.map { " (\($0.lastTransactionID - holder.snapshotID) commits behind)" } ?? ""
            return
                "\(holder.registration.label) opened \(seconds(now - holder.began)) s ago at commit \(holder.snapshotID)"
                + "\(behind)"
        }
        if others > 0 { blockers.append("\(others) other transaction(s) of this process (short reads)") }
        let wait =
            waited == .zero
            ? "it held back the last resize and is still live" : "still live after waiting \(seconds(waited)) s"
        return "resizing the map of \(path) \(from)to \(bytes) bytes needs every read in this process to end; "
            + "\(wait): " + blockers.joined(separator: "; ")
    }

    private func seconds(_ duration: Duration) -> String {
        let tenths = (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 10
        return "\(tenths.rounded() / 10)"
    }

    /// Adopts a map size that another process grew (after `MDB_MAP_RESIZED`).
    func adoptMapSizeGrownElsewhere() throws(LMDBError) {
        try setMapSize(0)
    }
}
