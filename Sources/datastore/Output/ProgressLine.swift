/// One progress report as text: what is done, how much, how fast, and the time left, fitted to a
/// width by dropping the least useful parts first.
struct ProgressLine {
    var label: String
    var unit: String
    var completed: Int
    /// The fraction done (0...1), when the total is known.
    var fraction: Double?
    var elapsedSeconds: Double

    /// Items per second so far.
    var rate: Int { Int(Double(completed) / max(elapsedSeconds, 0.001)) }

    /// The estimated seconds left, from the rate so far; `nil` without a fraction or progress.
    var secondsLeft: Double? {
        guard let fraction, fraction > 0.0001, elapsedSeconds > 0 else { return nil }
        return elapsedSeconds * (1 - min(fraction, 1)) / min(fraction, 1)
    }

    /// "ETA 1:02:03", "ETA 4:05" or "ETA 9 s".
    var eta: String? {
        secondsLeft.map { left in
            let total = Int(left.rounded(.up))
            let (hours, minutes, seconds) = (total / 3600, total / 60 % 60, total % 60)
            func two(_ number: Int) -> String { number < 10 ? "0\(number)" : "\(number)" }
            if hours > 0 { return "ETA \(hours):\(two(minutes)):\(two(seconds))" }
            if minutes > 0 { return "ETA \(minutes):\(two(seconds))" }
            return "ETA \(seconds) s"
        }
    }

    private var percent: String? { fraction.map { "\(Int(min(max($0, 0), 1) * 100))%" } }

    /// A line for a log: every part, no bar.
    var plainText: String {
        var text = "\(label): \(grouped(completed)) \(unit)"
        if let percent { text += " (\(percent))" }
        text += ", \(grouped(rate))/s"
        if let eta { text += ", \(eta)" }
        return text
    }

    /// The line for a terminal, at most `width` characters: the bar grows to fill what the
    /// words leave (up to 30 cells), and parts are dropped — the bar, the rate, the unit, the
    /// label — until it fits; at worst the text is cut.
    func text(width: Int) -> String {
        let counted = "\(grouped(completed)) \(unit)"
        let candidates: [[String?]] = [
            [label, nil, percent, eta, counted, "\(grouped(rate))/s"],
            [label, nil, percent, eta, counted],
            [label, percent, eta, counted],
            [label, percent, eta, grouped(completed)],
            [percent, eta, grouped(completed)],
            [percent ?? grouped(completed), eta],
            [percent ?? grouped(completed)]
        ]
        for (number, parts) in candidates.enumerated() {
            let words = parts.compactMap { $0 }
            let withBar = number < 2 && fraction != nil
            let used = words.reduce(0) { $0 + $1.count } + (words.count - (withBar ? 0 : 1)) * 2
            if withBar {
                let cells = min(30, width - used - 2)
                guard cells >= 5 else { continue }
                var shown = words
                shown.insert(bar(cells), at: 1)
                return shown.joined(separator: "  ")
            }
            if used <= width { return words.joined(separator: "  ") }
        }
        return String(words(candidates.last!).prefix(max(0, width)))
    }

    private func words(_ parts: [String?]) -> String { parts.compactMap { $0 }.joined(separator: "  ") }

    /// "[####......]" with `cells` cells inside the brackets.
    private func bar(_ cells: Int) -> String {
        let filled = Int((min(max(fraction ?? 0, 0), 1) * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled) + "]"
    }
}
