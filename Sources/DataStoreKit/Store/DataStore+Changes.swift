public import DataStoreCore
import DataStoreEngine

extension DataStore {
    /// Every commit recorded after `commit`, then every later one as it commits — in this process
    /// or another with the store open — in commit order, each exactly once (docs/changes.md).
    ///
    /// A consumer that stores the last ``/DataStoreEngine/CommitEvent/commit`` it handled resumes after it, across
    /// restarts. `nil` starts at the oldest commit still retained (``Options/changeFeed``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/changesTrimmed`` when commits after `commit` were trimmed
    ///   (its ``/DataStoreEngine/ChangesTrimmed`` names the oldest still available); `.invalidValue` for a commit
    ///   after the store's last one.
    public func changes(after commit: CommitID?) throws(DataStoreError) -> ChangeFeed {
        if let commit {
            let last = try changeLog.lastCommit()
            guard commit.rawValue <= last else {
                throw DataStoreError(
                    .invalidValue, "cannot resume the changes of \(path) after \(commit): its last commit is \(last)")
            }
            // Fails now, rather than at the first read, when the position was trimmed.
            _ = try changeLog.page(after: commit.rawValue, limit: 0)
        }
        return ChangeFeed(source: changeLog, start: commit?.rawValue)
    }

    /// Every commit from now on, in commit order, with the ids it inserted, updated and removed.
    /// The stream ends when the store closes, after the events of the commits queued before.
    ///
    /// It reads the durable feed (``changes(after:)``), starting after the last commit, so the
    /// writer never waits for it and nothing buffers while it is not read. A consumer so slow that
    /// the commits it has not read yet are trimmed sees the stream end.
    public func changes() -> AsyncStream<CommitEvent> {
        ChangeFeed(source: changeLog, start: (try? changeLog.lastCommit()) ?? 0).stream
    }

    /// What the writer has done so far: batches, change sets per batch, commit time.
    public var writerMetrics: WriterMetrics { writer.metrics }
}
