public import DataStoreEngine

/// The live results of one query on a ``PostgresStore`` (``PostgresCollection/observe(params:options:)``):
/// the same `QueryObservation` as an LMDB store's — the current results first, then the results
/// again after each commit, by this store or another, that may have changed them: one that
/// touched the collection, less those (for a query without a limit or offset) whose few touched
/// documents were not among the results and do not match now, which one statement over their
/// ids tells, where a refresh would run the whole query.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once. Each refresh runs the query on a pooled connection, so it holds
/// no snapshot while it waits. The sequence ends when its task is cancelled or the store closes.
public typealias PostgresQueryObservation<Object> = QueryObservation<Object>
