import Synchronization

/// The SQL texts of one layout's candidate statements, built once per ``StatementShape``: a
/// read then only looks its text up (shapes are few: per index, a handful of bound and page forms).
final class StatementTexts: Sendable {
    private let texts = Mutex<[Int: SQLText]>([:])

    /// The text of `shape` over `layout`, built on first use.
    func text(_ shape: StatementShape, in layout: TableLayout) -> SQLText {
        // Found by the shape's number: one integer hashed per read, not the shape's fields.
        let code = shape.code
        if let text = texts.withLock({ $0[code] }) { return text }
        let text = SQLText(shape.sql(in: layout))
        texts.withLock { $0[code] = text }
        return text
    }
}
