internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

extension Environment {
    /// How a long-lived read transaction is known to its environment (see
    /// ``beginRead(registering:)``).
    public struct ReaderRegistration: Sendable {
        /// What holds the transaction, as messages and statistics name it ("a Context's snapshot").
        public var label: String
        /// The age past which ``yieldExpiredReaders()`` asks it to yield; `nil` for no limit.
        public var maxAge: Duration?
        /// Asked to end the transaction, on the thread that needs it gone (the map resizer, or
        /// the thread calling ``yieldExpiredReaders()``), possibly while it is in use elsewhere.
        /// It must not block: it ends the transaction if it is idle, or returns, to be asked
        /// again. `nil`: the transaction cannot yield.
        public var yield: (@Sendable (YieldReason) -> Void)?

        /// A registration named `label`.
        public init(label: String, maxAge: Duration? = nil, yield: (@Sendable (YieldReason) -> Void)? = nil) {
            self.label = label
            self.maxAge = maxAge
            self.yield = yield
        }
    }

    /// Why a registered read transaction is asked to yield.
    public enum YieldReason: Sendable, Hashable {
        /// The map must grow to this many bytes, which needs every transaction of the process to end.
        case mapResize(toBytes: Int)
        /// The transaction is older than the `maxAge` it registered with.
        case ageLimit(Duration)
    }

    /// One slot of LMDB's reader table, across every process using the environment.
    public struct Reader: Sendable, Hashable {
        /// The process holding the slot.
        public let processID: Int32
        /// Whether that process is this one.
        public let isThisProcess: Bool
        /// The id of the last committed transaction its snapshot sees, or `nil` for a slot kept
        /// by a reset transaction that reads nothing now.
        public let snapshotID: Int?
        /// What holds it, for a registered transaction of this process (see
        /// ``beginRead(registering:)``); `nil` for short reads and other processes.
        public let label: String?
        /// How long its snapshot has been open, where known: registered transactions of this
        /// process. LMDB does not record when other processes' readers began.
        public let age: Duration?
    }

    /// Every slot of the reader table in use, with this process's registered transactions
    /// named and aged.
    ///
    /// The corresponding C function is `mdb_reader_list`.
    /// - Complexity: O(reader slots).
    public func readers() throws(LMDBError) -> [Reader] {
        let slots = try readerTable()
        let thisProcess = getpid()
        var unmatched = gate.registered.map(\.holder)
        let now = ContinuousClock.now
        return slots.map { slot in
            guard slot.processID == thisProcess, let snapshot = slot.snapshotID,
                let match = unmatched.firstIndex(where: { $0.snapshotID == snapshot })
            else {
                return Reader(
                    processID: slot.processID, isThisProcess: slot.processID == thisProcess,
                    snapshotID: slot.snapshotID, label: nil, age: nil)
            }
            let holder = unmatched.remove(at: match)
            return Reader(
                processID: slot.processID, isThisProcess: true, snapshotID: snapshot,
                label: holder.registration.label, age: now - holder.began)
        }
    }

    /// Asks every registered read transaction older than its `maxAge` to yield, and returns how
    /// many were asked. The writer calls this after each batch and while idle.
    @discardableResult
    public func yieldExpiredReaders() -> Int {
        let now = ContinuousClock.now
        return gate.askToYield { holder in
            guard let limit = holder.registration.maxAge, now - holder.began > limit else { return nil }
            return .ageLimit(limit)
        }
    }

    /// The reader table as `mdb_reader_list` prints it: `pid thread txnid` per slot in use, the
    /// txnid `-` for a reset transaction.
    private func readerTable() throws(LMDBError) -> [(processID: Int32, snapshotID: Int?)] {
        let lines = ReaderLines()
        let context = Unmanaged.passUnretained(lines).toOpaque()
        let code = mdb_reader_list(
            handle,
            { message, context in
                guard let message, let context else { return 0 }
                Unmanaged<ReaderLines>.fromOpaque(context).takeUnretainedValue().text += String(cString: message)
                return 0
            }, context)
        // mdb_reader_list returns its callback's last result, or -1 on a failure of its own.
        if code < 0 { throw LMDBError(.invalidArgument, context: "listing the readers of \(path)") }
        return withExtendedLifetime(lines) {
            lines.text.split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                guard fields.count == 3, let pid = Int32(fields[0]) else { return nil } // the header
                return (processID: pid, snapshotID: Int(fields[2]))
            }
        }
    }
}

/// The text `mdb_reader_list` hands its callback, collected.
private final class ReaderLines {
    var text = ""
}
