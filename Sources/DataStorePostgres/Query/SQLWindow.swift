import DataStoreKit

/// An ``IndexWindow`` as a SQL condition on a `bytea` key column, with its bounds as
/// parameters: `bytea` compares byte by byte, as LMDB compares keys.
struct SQLWindow {
    /// The condition, `TRUE` for the whole column.
    var condition: String
    /// The bounds, numbered after the parameters already used.
    var parameters: [SQLParameter]

    /// The condition of `window` on `column`, its parameters numbered from `firstParameter`.
    init(_ window: IndexWindow, column: String, firstParameter: Int) {
        var parts: [String] = []
        var parameters: [SQLParameter] = []
        func bound(_ op: String, _ key: [UInt8]) {
            parameters.append(.bytes(key))
            parts.append("\(column) \(op) $\(firstParameter + parameters.count - 1)")
        }
        // Keys that begin with an inclusive bound are inside; with an exclusive one, outside.
        if window.startInclusive {
            if !window.start.isEmpty { bound(">=", window.start) }
        } else if let beyond = IndexWindow.successor(of: window.start) {
            bound(">=", beyond)
        } else {
            parts.append("FALSE")
        }
        if let end = window.end {
            if !window.endInclusive {
                bound("<", end)
            } else if let beyond = IndexWindow.successor(of: end) {
                bound("<", beyond)
            }
        }
        condition = parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
        self.parameters = parameters
    }

    /// The condition for keys past `key` in scan order (the next page).
    static func after(_ key: [UInt8], column: String, backward: Bool, parameter: Int) -> String {
        "\(column) \(backward ? "<" : ">") $\(parameter)"
    }
}
