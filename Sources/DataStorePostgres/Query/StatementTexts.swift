import Synchronization

/// The SQL texts of one layout's candidate statements, built once per ``StatementShape``: a
/// read then only looks its text up (shapes are few: per index, a handful of bound and page forms).
final class StatementTexts: Sendable {
    private let texts = Mutex<[StatementShape: String]>([:])

    /// The text of `shape` over `layout`, built on first use.
    func text(_ shape: StatementShape, in layout: TableLayout) -> String {
        if let text = texts.withLock({ $0[shape] }) { return text }
        let text = shape.sql(in: layout)
        texts.withLock { $0[shape] = text }
        return text
    }
}
