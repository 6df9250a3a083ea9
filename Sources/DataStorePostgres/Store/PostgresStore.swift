public import DataStoreCore
public import DataStoreEngine

/// A store on PostgreSQL (or an engine that speaks its protocol): the same collections,
/// indexes, queries and errors as `DataStore`, with the server keeping the data.
///
/// ```swift
/// let store = try await PostgresStore.open(url: "postgresql://app@db.internal:5432/app")
/// let messages = try await store.collection(Message.self, indexes: [IndexDefinition("created_ts")])
/// ```
///
/// DataStoreKit's planner and order-preserving key codec decide every query, as on LMDB; the
/// server stores the keys they compute (docs/postgres.md). Writes go through one coalescing
/// writer per store; reads use a pool of connections, one snapshot per call.
public final class PostgresStore: Sendable {
    /// How the store connects and writes.
    public struct Options: Sendable {
        /// Reader threads, each running one read at a time on a pooled connection (off Swift's
        /// cooperative pool), and the idle connections kept open for them.
        public var readers: Int
        /// Change sets per batch (at most 64 savepoints per transaction).
        public var maxBatch: Int
        /// Attempts of a change set that meets a serialization failure or deadlock (40001, 40P01).
        public var maxAttempts: Int
        /// The change feed: whether commits are recorded, for how long (`maxAge`) and in how many
        /// bytes of outbox rows (`maxBytes`), and how often a waiting reader polls.
        public var changeFeed: ChangeFeedOptions
        /// How the store learns of other stores' commits: `LISTEN/NOTIFY`, or polling.
        public var changeNotifications: ChangeNotifications
        /// The engine behind the server, for the tables the store creates: `.yugabyteDB` declares
        /// the key columns it scans by range `ASC`, so that YugabyteDB shards them by range.
        public var engine: PostgresEngine
        /// Which family of transaction-id functions commit identities and the change feed's bounds
        /// are read with: `.automatic` (the default) takes PostgreSQL 13's `pg_current_xact_id()`
        /// family when the server has it and the older `txid_current()` family otherwise;
        /// `.xact` or `.txid` insists on one.
        public var transactionIDFunctions: TransactionIDFunctions
        /// Whether a read whose statement a pooled connection has prepared is sent from the
        /// caller's thread and awaited there for at most `callerPoll`, then on the process's event
        /// thread, holding no thread while the server answers (docs/postgres.md, "Reads");
        /// otherwise every read runs on a reader thread.
        public var awaitedReads: Bool
        /// How long an awaited read waits for its answer on the caller's thread before it hands
        /// the wait to the event thread (zero: at once). Half the cooperative pool's threads at
        /// most wait so at a time; the others hand over at once, as do seven runs in eight of a
        /// statement that last took longer than this to answer.
        public var callerPoll: Duration
        /// How long a collection handle plans its reads over the index list it last read or wrote
        /// with before one of its reads reads `_meta`'s once more (one short statement): an index
        /// another handle, store or process declares serves this handle's reads within about this
        /// time. With `.zero` every read checks the list, except while another read is checking it;
        /// a negative age counts as zero, one beyond what nanoseconds hold as never.
        public var indexListMaxAge: Duration
        /// The function a write batch takes the schema lock with (tests name one the server lacks,
        /// as an engine without advisory locks would); a constant, never user input.
        package var schemaLockFunction = "pg_advisory_xact_lock_shared"
        /// The largest document a write takes, in bytes of its encoded record: 64 MiB by default,
        /// as on LMDB. A larger one fails with ``/DataStoreCore/DataStoreError/Code/tooLarge``
        /// before anything is sent. PostgreSQL itself holds at most 255 MiB of a document's
        /// `jsonb` rendering, and refuses a larger one with `.tooLarge` whatever this bound.
        public var maxDocumentBytes = DocumentSize.defaultLimit
        /// The longest wait to connect (or reconnect) to the server, `nil` for no bound (10 s by
        /// default): past it, the call fails with ``/DataStoreCore/DataStoreError/Code/timedOut``.
        /// A `connect_timeout` in the URL takes its place, read as libpq reads it.
        public var connectTimeout: Duration? = .seconds(10)
        /// The longest wait for the server to answer one statement, or one round trip of a write
        /// batch, `nil` for no bound (60 s by default): past it, the call fails with
        /// ``/DataStoreCore/DataStoreError/Code/timedOut`` (a read, or a write that was not yet
        /// committing: nothing of it is written) or `.outcomeUnknown` (a commit whose answer did
        /// not come, and whose outcome could not be learned). An index build waits this long for
        /// each chunk and for making its b-tree: raise it for very large collections.
        public var statementTimeout: Duration? = .seconds(60)
        /// The longest a write waits, queued and committing, `nil` for no bound (120 s by default).
        /// A change set still queued when it passes is withdrawn and fails with
        /// ``/DataStoreCore/DataStoreError/Code/timedOut`` (nothing written); one already being
        /// committed fails with `.outcomeUnknown`, naming how to find out whether it landed.
        public var saveTimeout: Duration? = .seconds(120)

        /// The defaults: 4 readers, batches of up to 64 change sets, 6 attempts, the change feed
        /// kept 7 days and at most 64 MiB, woken by `LISTEN/NOTIFY`, tables declared for PostgreSQL,
        /// awaited reads that wait up to 1 ms on the caller's thread, transaction-id functions
        /// chosen by what the server has, index lists read again after a second.
        public init(
            readers: Int = 4, maxBatch: Int = 64, maxAttempts: Int = 6,
            changeFeed: ChangeFeedOptions = ChangeFeedOptions(), changeNotifications: ChangeNotifications = .listen,
            engine: PostgresEngine = .postgreSQL, awaitedReads: Bool = true, callerPoll: Duration = .milliseconds(1),
            transactionIDFunctions: TransactionIDFunctions = .automatic, indexListMaxAge: Duration = .seconds(1)
        ) {
            self.indexListMaxAge = indexListMaxAge
            self.transactionIDFunctions = transactionIDFunctions
            self.awaitedReads = awaitedReads
            // An hour at most: a wait is counted in nanoseconds.
            self.callerPoll = min(max(.zero, callerPoll), .seconds(3_600))
            self.readers = readers
            self.maxBatch = max(1, min(maxBatch, 64))
            self.maxAttempts = max(1, maxAttempts)
            self.changeFeed = changeFeed
            self.changeNotifications = changeNotifications
            self.engine = engine
        }
    }

    /// The URL (or connection string) the store was opened with; empty for the `PG*` variables.
    public let url: String
    let pool: ConnectionPool
    /// The threads reads run on, off the cooperative pool.
    let readers: ReaderThreads
    let writer: PostgresWriter
    /// The change feed's outbox, read by ``changes(after:)`` and observations.
    let changeSource: PostgresChangeSource
    let observations: ObservationCenter
    /// How the store declares the tables and b-trees it creates.
    let ddl: TableDDL
    /// ``Options/indexListMaxAge`` in nanoseconds.
    let indexListMaxAge: UInt64
    /// ``Options/maxDocumentBytes``.
    let maxDocumentBytes: Int

    private init(
        url: String, pool: ConnectionPool, readers: ReaderThreads, writer: PostgresWriter,
        changeSource: PostgresChangeSource, ddl: TableDDL, indexListMaxAge: Duration, maxDocumentBytes: Int
    ) {
        self.maxDocumentBytes = max(1, maxDocumentBytes)
        self.indexListMaxAge = indexListMaxAge.saturatingNanoseconds
        self.url = url
        self.ddl = ddl
        self.pool = pool
        self.readers = readers
        self.writer = writer
        self.changeSource = changeSource
        self.observations = ObservationCenter(log: changeSource)
    }

    /// Connects to the server at `url` (`postgresql://user@host:port/database`, or `""` for the
    /// server the `PG*` environment variables name).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.network` when the server cannot be reached;
    ///   `.unsupported` naming the functions it lacks when it has neither family of
    ///   transaction-id functions (or not the one ``Options/transactionIDFunctions`` insists on).
    public static func open(url: String, options: Options = Options()) async throws -> PostgresStore {
        try PostgresURL.validate(url)
        let pool = ConnectionPool(
            conninfo: url, maxIdle: options.readers, awaitedReads: options.awaitedReads, callerPoll: options.callerPoll,
            timeouts: ConnectionTimeouts(
                connect: PostgresURL.connectTimeout(in: url) ?? options.connectTimeout,
                statement: options.statementTimeout))
        let readers = ReaderThreads(count: options.readers, slots: pool.slots)
        let ddl = TableDDL(engine: options.engine)
        let connection: Connection
        let source: PostgresChangeSource
        let canLearnOutcomes: Bool
        do {
            // Connecting blocks: on a reader thread, not the caller's.
            (connection, source, canLearnOutcomes) = try await readers.run {
                let (connection, clock, available) = try connect(pool, url: url, options: options, ddl: ddl)
                let source = PostgresChangeSource(
                    pool: pool, readers: readers, options: options.changeFeed, clock: clock, latest: 0)
                source.signal.committed(try source.lastCommit())
                return (connection, source, available.contains(clock.statusFunction))
            }
        } catch {
            readers.close()
            throw error
        }
        if options.changeFeed.isEnabled {
            source.signal.onFirstWait { [weak source, mode = options.changeNotifications] _ in
                source?.watch(mode, conninfo: url)
            }
        }
        var limits = PostgresWriter.Limits()
        limits.maxBatch = options.maxBatch
        limits.maxAttempts = options.maxAttempts
        limits.schemaLockFunction = options.schemaLockFunction
        limits.saveTimeout = options.saveTimeout
        let feed =
            options.changeFeed.isEnabled
            ? FeedSettings(
                notify: options.changeNotifications == .listen, maxAge: options.changeFeed.maxAge,
                maxBytes: options.changeFeed.maxBytes) : nil
        let writer = PostgresWriter(
            connection: connection, limits: limits, clock: source.clock, feed: feed, canLearnOutcomes: canLearnOutcomes
        ) {
            [signal = source.signal] in
            signal.committed(Int($0))
        }
        return PostgresStore(
            url: url, pool: pool, readers: readers, writer: writer, changeSource: source, ddl: ddl,
            indexListMaxAge: options.indexListMaxAge, maxDocumentBytes: options.maxDocumentBytes)
    }

    /// The writer's connection, and the transaction-id functions the server has (checked before
    /// the outbox is created, so a server the store cannot use is left as it was).
    private static func connect(_ pool: ConnectionPool, url: String, options: Options, ddl: TableDDL)
        throws(DataStoreError) -> (Connection, CommitClock, available: Set<String>)
    {
        let connection: Connection
        let available: Set<String>
        do throws(PostgresError) {
            connection = try pool.connect()
            available = try CommitClock.available(on: connection)
        } catch {
            throw DataStoreError.postgres(error, "opening the store")
        }
        let clock = try CommitClock.choose(options.transactionIDFunctions, available: available, server: url)
        do throws(PostgresError) {
            if options.changeFeed.isEnabled { try Outbox.create(ddl: ddl, on: connection) }
        } catch {
            throw DataStoreError.postgres(error, "opening the store")
        }
        return (connection, clock, available)
    }

    /// Stops writing once what is queued has committed, ends change feeds and observations
    /// (after what they have yet to read), and closes the connections.
    public func close() {
        writer.close()
        changeSource.signal.close()
        readers.close()
        pool.close()
    }

    /// How many batches the writer committed and how many change sets they carried.
    public var writerBatches: (batches: Int, changeSets: Int) { writer.metrics }

    /// The names of the stored collections.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.network` when the server is unreachable.
    public func collectionNames() throws -> [String] {
        try pool.read("listing collections") { connection in
            do { return try SchemaCatalog.names(on: connection) } catch let error as PostgresError
                where error.code == .undefinedTable
            { return [] }
        }
    }

    /// The collection `name`, storing objects through `mapping`, with the declared indexes,
    /// reconciled with what is stored as `DataStore/collection(_:mapping:indexes:indexBuildChunk:undeclaredIndexes:)`
    /// does: new indexes are built before this returns, a stored index the declaration leaves
    /// out is kept unless `undeclaredIndexes` is `UndeclaredIndexes/drop`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.schemaMismatch`, `.uniqueViolation`, `.network`.
    public func collection<Object>(
        _ name: String,
        mapping: ObjectMapping<Object>,
        indexes: [IndexDefinition] = [],
        indexBuildChunk: Int = 1_000,
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> PostgresCollection<Object> {
        try mapping.checkIDField(collection: name)
        let layout = try await writer.exclusive { [ddl] connection in
            try SchemaCatalog.declare(
                name, idField: mapping.idField, indexes: indexes, mode: .declaration(undeclaredIndexes),
                chunk: indexBuildChunk, ddl: ddl, on: connection)
        }
        return PostgresCollection(store: self, layout: layout, mapping: mapping)
    }

    /// The collection of an ``/DataStoreCore/ObjectCoder`` class, named after the class unless `name` is given.
    public func collection<Object: ObjectCoder & SendableMetatype>(
        _ type: Object.Type, name: String? = nil, indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> PostgresCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .objectCoder, indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }

    /// The collection of a `Codable` type whose identifier is the property `idField`.
    public func collection<Object: Codable & SendableMetatype>(
        _ type: Object.Type, name: String? = nil, idField: String, indexes: [IndexDefinition] = [],
        undeclaredIndexes: UndeclaredIndexes = .keep
    ) async throws -> PostgresCollection<Object> {
        try await collection(
            name ?? String(describing: type), mapping: .codable(idField: idField), indexes: indexes,
            undeclaredIndexes: undeclaredIndexes)
    }
}

extension PostgresStore {
    /// The stored collection `name`, as documents, with its stored id field and indexes.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.notFound` naming the collection.
    public func documentCollection(_ name: String) async throws -> PostgresCollection<Document> {
        try StoreNames.checkCollection(name)
        let stored = try pool.read("reading the schema of \(name)") { connection in
            do { return try SchemaCatalog.load(name, on: connection) } catch let error as PostgresError
                where error.code == .undefinedTable
            { return nil }
        }
        guard let stored else { throw DataStoreError(.notFound, "no collection \(name) on \(url)") }
        return PostgresCollection(store: self, layout: stored, mapping: .documents(idField: stored.idField))
    }
}
