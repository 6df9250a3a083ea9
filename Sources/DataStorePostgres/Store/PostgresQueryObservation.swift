public import DataStoreKit

/// The live results of one query on a ``PostgresStore`` (``PostgresCollection/observe(params:options:)``):
/// the same `QueryObservation` as an LMDB store's — the current results first, then the results
/// again after each commit, by this store or another, that touched the collection.
///
/// A flag, not a queue, stands between commits and the consumer: one that falls behind a burst
/// gets the latest results once. Each refresh runs the query on a pooled connection, so it holds
/// no snapshot while it waits. The sequence ends when its task is cancelled or the store closes.
public typealias PostgresQueryObservation<Object> = QueryObservation<Object>
