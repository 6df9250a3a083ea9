import DataStoreCore
import DataStoreEngine
import Foundation

/// The writer's part of the change feed: the outbox statements that end each batch, and when they
/// trim. Used only on the writer thread.
///
/// A trim is due when the age bound's interval has passed, when the last commit left the outbox
/// over its size bound (or the size is not known yet), or when the last trim deleted something
/// (more may be due at once, so a busy store's log does not outgrow its bounds).
struct OutboxRecorder {
    let settings: FeedSettings
    /// The SQL of the server's transaction ids.
    let clock: CommitClock
    private var lastAgeTrim: ContinuousClock.Instant?
    /// The bytes the outbox's rows held after the last commit that recorded any, when known.
    private(set) var bytes: Int?
    private var trimmedLast = false
    /// Where the size and the trim answer among the statements last made.
    private var sizeAt: Int?
    private var trimAt: Int?

    init(settings: FeedSettings, clock: CommitClock) {
        self.settings = settings
        self.clock = clock
    }

    /// The statements recording `changes` at `time` (nothing when empty), and a trim when due.
    mutating func statements(for changes: [CollectionChanges], time: Date) -> [(
        sql: String, parameters: [SQLParameter]
    )] {
        var statements: [(sql: String, parameters: [SQLParameter])]
        (statements, sizeAt) = Outbox.record(changes, time: time, notify: settings.notify, clock: clock)
        trimAt = nil
        if trimIsDue() {
            trimAt = statements.count
            let cutoff = settings.maxAge.map { time.addingTimeInterval(-Self.seconds($0)) }
            statements.append(Outbox.trim(before: cutoff, maxBytes: settings.maxBytes))
        }
        return statements
    }

    /// Reads what the statements last made answered, once their transaction committed.
    mutating func committed(_ outcomes: ArraySlice<PipelineOutcome>) {
        let first = outcomes.startIndex
        if let sizeAt, case .done(let size) = outcomes[first + sizeAt], size.rowCount == 1, let value = size.int(0, 0) {
            bytes = Int(value)
        }
        if let trimAt, case .done(let trimmed) = outcomes[first + trimAt] {
            trimmedLast = trimmed.rowCount > 0
            // What the size read before the trim said is stale now.
            if trimmedLast { bytes = nil }
        }
    }

    /// Forgets what the statements last made would have answered, when the answers were lost
    /// (the commit's outcome was learned afterwards): the next commit reads the size anew.
    mutating func forgetAnswers() {
        bytes = nil
        trimmedLast = true
    }

    private mutating func trimIsDue() -> Bool {
        if trimmedLast { return true }
        // Until a commit has told the size (the first after opening), a trim finds out for itself.
        if let maxBytes = settings.maxBytes, (bytes ?? .max) > maxBytes { return true }
        guard let interval = settings.trimInterval else { return false }
        if let lastAgeTrim, ContinuousClock.now - lastAgeTrim < interval { return false }
        lastAgeTrim = .now
        return true
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
