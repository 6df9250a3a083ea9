/// Everything that decides the SQL text of a candidate statement — never its values, which are
/// bound parameters — so that each text is built once per layout and shape.
struct StatementShape: Hashable, Sendable {
    /// Where the candidates come from.
    enum Source: Hashable, Sendable {
        /// The table, in id order.
        case ids
        /// The table, in the order of index column `k<n>`.
        case column(Int)
        /// The side table of multi-value index `n`, joined to the table.
        case sideTable(Int)
    }

    /// The lower bound of the window.
    enum Lower: Hashable, Sendable {
        /// None: from the column's first key.
        case none
        /// `column >= $n`.
        case atLeast
        /// No key can be inside (an exclusive bound with no successor).
        case impossible
    }

    var source: Source
    var lower: Lower
    var hasUpper: Bool
    /// Whether the page starts after a key (`column > $n`, or `<` backward).
    var after: Bool
    var limited: Bool
    var ordered: Bool
    var backward: Bool
    /// Whether the rows carry their version (a context's reads need it; a collection's do not).
    var versions: Bool
    /// Whether the rows carry the record (and version) alone, without the id and the order
    /// column: a scan whose rows cannot come twice, whose next page starts after a key the
    /// client computes from the last record. The answer is smaller, and a smaller answer takes
    /// fewer wake-ups of the reading thread.
    var lean: Bool

    /// A number that tells every shape apart: the source's kind and index column in the high
    /// bits, the lower bound's form above the flags in the low bits.
    var code: Int {
        let origin =
            switch source {
            case .ids: 0
            case .column(let number): number << 2 | 1
            case .sideTable(let number): number << 2 | 2
            }
        let bound =
            switch lower {
            case .none: 0
            case .atLeast: 1
            case .impossible: 2
            }
        func bit(_ flag: Bool, _ position: Int) -> Int { flag ? 1 << position : 0 }
        let flags =
            bit(hasUpper, 0) | bit(after, 1) | bit(limited, 2) | bit(ordered, 3) | bit(backward, 4) | bit(versions, 5)
            | bit(lean, 6)
        return origin << 10 | bound << 8 | flags
    }

    /// The column rows are ordered and paged by.
    var orderColumn: String {
        switch source {
        case .ids: "t.id"
        case .column(let number): "t.k\(number)"
        case .sideTable: "m.key"
        }
    }

    /// The statement over `layout`, its parameters numbered as a scan binds them: the lower
    /// bound, the upper, the key the page starts after, the limit.
    func sql(in layout: TableLayout) -> String {
        let column = orderColumn
        var parts: [String] = []
        var number = 0
        func next() -> String {
            number += 1
            return "$\(number)"
        }
        switch lower {
        case .none: break
        case .atLeast: parts.append("\(column) >= \(next())")
        case .impossible: parts.append("FALSE")
        }
        if hasUpper { parts.append("\(column) < \(next())") }
        if after { parts.append("\(column) \(backward ? "<" : ">") \(next())") }
        let source =
            switch self.source {
            case .ids, .column: "FROM \(layout.table) t"
            case .sideTable(let number): "FROM \(layout.table)_m\(number) m JOIN \(layout.table) t ON t.id = m.id"
            }
        let version = versions ? ", t.version" : ""
        let selected =
            lean ? "t.record\(version)" : "t.id, t.record\(version)\(self.source == .ids ? "" : ", \(column)")"
        var sql =
            "SELECT \(selected) \(source) WHERE \(parts.isEmpty ? "TRUE" : parts.joined(separator: " AND "))"
        if ordered { sql += " ORDER BY \(column)\(backward ? " DESC" : "")" }
        if limited { sql += " LIMIT \(next())" }
        return sql
    }
}
