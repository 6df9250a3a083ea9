extension Connection {
    /// The session settings that make the server run each statement the way the store's own
    /// planner chose, planned once per session.
    ///
    /// The statements carry a key window as two bound `bytea` bounds, whose selectivity the
    /// server cannot estimate without their values. Left to itself it plans every execution of a
    /// prepared statement afresh (a generic plan costed at its default 0.5 % of the table never
    /// beats a custom plan costed with the values), which on a small read costs more than running
    /// it; and a generic plan costed that way prefers a bitmap scan and a sort, or a hash join
    /// over the whole table for a multi-value index's side table. So the session asks for generic
    /// plans and leaves the server the plans the store's planner means: the ordered index scan
    /// of the window, and for a side table a nested loop into the table's primary key. A full
    /// scan is still a sequential scan.
    static let plannerSettings: [(name: String, value: String)] = [
        ("plan_cache_mode", "force_generic_plan"),
        ("enable_bitmapscan", "off"),
        ("enable_hashjoin", "off"),
        ("enable_mergejoin", "off")
    ]

    /// Applies `settings` to this session, skipping any the server does not know (PostgreSQL
    /// before 12 has no `plan_cache_mode`; engines that speak the protocol lack some): those
    /// only make reads slower, never different.
    /// - Throws: ``PostgresError`` for anything else, such as a lost connection.
    func apply(_ settings: [(name: String, value: String)]) throws(PostgresError) {
        for (name, value) in settings {
            do throws(PostgresError) {
                try execute("SELECT set_config($1, $2, false)", [.text(name), .text(value)])
            } catch {
                guard error.code == .undefinedObject || error.code == .featureNotSupported else { throw error }
            }
        }
    }
}
