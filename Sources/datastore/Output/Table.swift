/// Rows of text cells printed in aligned columns under a header.
struct Table {
    /// The column titles.
    var header: [String]
    /// The cells, row by row; a short row is padded with empty cells.
    var rows: [[String]] = []
    /// The columns whose cells are right-aligned (numbers).
    var rightAligned: Set<Int> = []
    /// The widest a cell is shown; longer ones are cut with `…`.
    var maxCellWidth = 48

    init(_ header: [String], rightAligned: Set<Int> = []) {
        self.header = header
        self.rightAligned = rightAligned
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    /// The table as lines: header, a rule, then the rows.
    var lines: [String] {
        let shown = ([header] + rows).map { row in
            (0..<header.count).map { column in Table.cut(column < row.count ? row[column] : "", to: maxCellWidth) }
        }
        let widths = (0..<header.count).map { column in shown.map { $0[column].count }.max() ?? 0 }
        var lines = shown.map { row in
            zip(row.indices, row).map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces
        }
        lines.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "), at: 1)
        return lines
    }

    /// `text` on one line, at most `width` characters.
    static func cut(_ text: String, to width: Int) -> String {
        let flat =
            text.contains(where: \.isNewline) ? text.split(whereSeparator: \.isNewline).joined(separator: " ") : text
        return flat.count <= width ? flat : String(flat.prefix(width - 1)) + "…"
    }
}

extension String {
    /// The string without spaces at its end.
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}

/// Writes a number with thousands separators: `1,234,567`.
func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var text = ""
    for (position, digit) in digits.enumerated() {
        if position > 0 && (digits.count - position) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return number < 0 ? "-" + text : text
}

/// Writes a byte count for people: `512 B`, `4.0 KiB`, `1.5 GiB`.
func byteSize(_ bytes: Int) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    if unit == 0 { return "\(bytes) B" }
    let tenths = (value * 10).rounded() / 10
    return "\(tenths) \(units[unit])"
}
