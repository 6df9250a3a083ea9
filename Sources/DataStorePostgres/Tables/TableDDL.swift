/// The statements that create the store's tables and b-trees, as `engine` needs them: on
/// YugabyteDB every key column scanned by range is declared `ASC` (range sharding), elsewhere the
/// server's default order is left as it is.
struct TableDDL {
    let engine: PostgresEngine

    /// ` ASC` where the engine shards by hash unless told, else nothing.
    private var ascending: String { engine == .yugabyteDB ? " ASC" : "" }

    /// A collection's table: the id key, the record, its JSON rendering and its version.
    func collectionTable(_ layout: TableLayout) -> String {
        """
        CREATE TABLE \(layout.table) (
            id bytea NOT NULL,
            record bytea NOT NULL,
            doc jsonb,
            version int8 NOT NULL,
            CONSTRAINT \(layout.table)_pkey PRIMARY KEY (id\(ascending)))
        """
    }

    /// A multi-value index's side table (a row per element, keyed by the element's index key),
    /// then the b-tree that finds a record's rows by its id.
    func sideTable(_ side: String) -> [String] {
        [
            "CREATE TABLE \(side) (key bytea NOT NULL, id bytea NOT NULL, u bytea, PRIMARY KEY (key\(ascending)))",
            "CREATE INDEX \(side)_id ON \(side) (id\(ascending))"
        ]
    }

    /// The b-tree of a single-value index's key column; the key ends with the record key, so it
    /// orders entries as (key, id).
    func keyIndex(_ index: StoredIndex, of layout: TableLayout) -> String {
        "CREATE INDEX \(layout.table)_k\(index.column) ON \(layout.table) (\(index.keyColumn)\(ascending))"
    }

    /// The change feed's outbox, keyed by commit and the collection's place in it.
    var outboxTable: String {
        """
        CREATE TABLE IF NOT EXISTS _changes (
            commit int8 NOT NULL,
            seq int4 NOT NULL,
            time int8 NOT NULL,
            collection text NOT NULL,
            inserted bytea[] NOT NULL,
            updated bytea[] NOT NULL,
            removed bytea[] NOT NULL,
            bytes int8 NOT NULL DEFAULT 0,
            PRIMARY KEY (commit\(ascending), seq\(ascending)))
        """
    }
}
