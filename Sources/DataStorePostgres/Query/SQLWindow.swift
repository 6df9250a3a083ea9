import DataStoreEngine

/// An ``IndexWindow`` as bounds on a `bytea` key column: the shape of its condition and the
/// bounds as parameters (`bytea` compares byte by byte, as LMDB compares keys).
struct SQLWindow {
    /// The lower bound's part of the condition.
    var lower: StatementShape.Lower
    /// Whether the condition has an upper bound (`column < $n`).
    var hasUpper: Bool
    /// The bounds, lower first.
    var parameters: [SQLParameter]

    /// The bounds of `window`.
    init(_ window: IndexWindow) {
        parameters = []
        // Keys that begin with an inclusive bound are inside; with an exclusive one, outside.
        if window.startInclusive {
            lower = window.start.isEmpty ? .none : .atLeast
            if !window.start.isEmpty { parameters.append(.bytes(window.start)) }
        } else if let beyond = IndexWindow.successor(of: window.start) {
            lower = .atLeast
            parameters.append(.bytes(beyond))
        } else {
            lower = .impossible
        }
        hasUpper = false
        if let end = window.end {
            if !window.endInclusive {
                hasUpper = true
                parameters.append(.bytes(end))
            } else if let beyond = IndexWindow.successor(of: end) {
                hasUpper = true
                parameters.append(.bytes(beyond))
            }
        }
    }
}
