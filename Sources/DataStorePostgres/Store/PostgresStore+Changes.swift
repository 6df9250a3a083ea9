public import DataStoreCore
public import DataStoreEngine

extension PostgresStore {
    /// Every commit recorded after `commit`, then every later one as it commits — by this store
    /// or another on the same database — in commit-id order, each exactly once (docs/postgres.md,
    /// "The change feed"; the same `ChangeFeed` as an LMDB store's).
    ///
    /// A consumer that stores the last `CommitEvent.commit` it handled resumes after it, across
    /// restarts. `nil` starts at the oldest commit still retained (``Options/changeFeed``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/changesTrimmed`` when commits after `commit` were trimmed
    ///   (its `ChangesTrimmed` names the oldest still available); `.invalidValue` for a commit
    ///   the server has not reached; `.network` when the server cannot be reached.
    public func changes(after commit: CommitID?) throws(DataStoreError) -> ChangeFeed {
        if let commit {
            let next = try changeSource.nextCommit()
            guard commit.rawValue < next else {
                throw DataStoreError(
                    .invalidValue,
                    "cannot resume the changes of \(url.isEmpty ? "the store" : url) after \(commit): "
                        + "the server's last transaction is \(next - 1)")
            }
            // Fails now, rather than at the first read, when the position was trimmed.
            _ = try changeSource.readPage(after: commit.rawValue, limit: 0)
        }
        return ChangeFeed(source: changeSource, start: commit?.rawValue)
    }

    /// Every commit from now on — by this store or another on the same database — in commit-id
    /// order, with the ids it inserted, updated and removed. The stream ends when the store
    /// closes, after the events of the commits made before.
    ///
    /// It reads the outbox (``changes(after:)``), starting at the feed's horizon now, so the writer
    /// never waits for it and nothing buffers while it is not read; while a write transaction on
    /// the server holds the horizon back, commits made just before may come too. A consumer so
    /// slow that the commits it has not read yet are trimmed sees the stream end.
    public func changes() -> AsyncStream<CommitEvent> {
        ChangeFeed(source: changeSource, start: (try? changeSource.lastCommit()) ?? 0).stream
    }
}
