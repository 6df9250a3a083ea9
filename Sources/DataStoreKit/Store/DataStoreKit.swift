/// DataStoreKit: the LMDB store — collections, secondary indexes, the query planner, contexts and the writer.
