import DataStoreCore
import Synchronization

/// Feeds live query observations from the change log: one task reads each new commit once and
/// marks the observers of the collections it touched, so an observer of an untouched collection
/// costs nothing per commit, and the writer nothing per observer.
package final class ObservationCenter: Sendable {
    private struct State {
        var observers: [Int: Observer] = [:]
        var byCollection: [String: Set<Int>] = [:]
        var nextID = 0
        var tail: Task<Void, Never>?
    }

    let log: any ChangeSource
    private let state = Mutex(State())
    private let processed = Atomic<Int>(0)
    private let skipped = Atomic<Int>(0)
    private let unchanged = Atomic<Int>(0)

    package init(log: any ChangeSource) { self.log = log }

    /// Whether the store has closed: observers registered from now on end at once.
    package var isClosed: Bool { log.isClosed }

    /// Observers registered now (a test counts what cancelled observations leave behind).
    package var observerCount: Int { state.withLock { $0.observers.count } }

    /// The last commit the log reader has marked observers for.
    package var processedThrough: Int { processed.load(ordering: .acquiring) }

    /// Wake-ups that observers found could not change their results (for tests).
    var skippedRefreshes: Int { skipped.load(ordering: .relaxed) }

    func noteSkippedRefresh() { skipped.add(1, ordering: .relaxed) }

    /// Refreshes whose results were the last ones, byte for byte, and were not yielded (for tests).
    package var unchangedRefreshes: Int { unchanged.load(ordering: .relaxed) }

    func noteUnchangedRefresh() { unchanged.add(1, ordering: .relaxed) }

    /// The task reading the log for observers, while any is registered.
    var tailTask: Task<Void, Never>? { state.withLock { $0.tail } }

    /// Registers an observer of `collection`, starting the log reader if none runs. Marked from
    /// the commit after the last one now, so a query run after this misses no commit.
    package func register(collection: String) -> ObserverRegistration {
        let start = (try? log.lastCommit()) ?? 0
        let (observer, startTail) = state.withLock { state -> (Observer, Bool) in
            defer { state.nextID += 1 }
            let observer = Observer(id: state.nextID, collection: collection)
            state.observers[observer.id] = observer
            state.byCollection[collection, default: []].insert(observer.id)
            return (observer, state.tail == nil)
        }
        if log.isClosed { observer.end() }
        if startTail { startReading(after: start) }
        return ObserverRegistration(observer: observer, center: self)
    }

    func unregister(_ observer: Observer) {
        let tail = state.withLock { state -> Task<Void, Never>? in
            state.observers[observer.id] = nil
            state.byCollection[observer.collection]?.remove(observer.id)
            if state.byCollection[observer.collection]?.isEmpty == true {
                state.byCollection[observer.collection] = nil
            }
            guard state.observers.isEmpty else { return nil }
            defer { state.tail = nil }
            return state.tail
        }
        tail?.cancel()
    }

    private func startReading(after start: Int) {
        let task = Task.detached { [self] in await read(after: start) }
        let superseded = state.withLock { state -> Bool in
            // An observer may have left (cancelling nothing) before the task was stored.
            guard !state.observers.isEmpty, state.tail == nil else { return true }
            state.tail = task
            return false
        }
        if superseded { task.cancel() }
    }

    /// Marks the observers of each commit's collections; ends them all once the store closed.
    private func read(after start: Int) async {
        var position = start
        while !Task.isCancelled {
            do {
                for try await event in ChangeFeed(source: log, start: position) {
                    position = event.commit.rawValue
                    mark(event)
                    processed.store(position, ordering: .releasing)
                }
                break
            } catch {
                // Trimmed (or unreadable) past this reader: every observer refreshes, from now on,
                // after a pause so that a log that cannot be read is not retried in a tight loop.
                position = (try? log.lastCommit()) ?? position
                markAll()
                try? await Task.sleep(for: log.retryInterval)
            }
        }
        guard !Task.isCancelled, log.isClosed else { return }
        for observer in state.withLock({ Array($0.observers.values) }) { observer.end() }
    }

    private func mark(_ event: CommitEvent) {
        for change in event.changes {
            let observers = state.withLock { state in
                (state.byCollection[change.collection] ?? []).compactMap { state.observers[$0] }
            }
            guard !observers.isEmpty else { continue }
            let ids = change.inserted + change.updated + change.removed
            for observer in observers { observer.markChanged(ids) }
        }
    }

    private func markAll() {
        for observer in state.withLock({ Array($0.observers.values) }) { observer.markChanged(nil) }
    }
}
