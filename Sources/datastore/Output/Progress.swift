/// Progress of a long command on standard error: a bar redrawn in place on a terminal, a plain
/// line every few seconds otherwise.
final class Progress {
    private let stream: OutputStream
    private let label: String
    private let unit: String
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastShown: ContinuousClock.Instant?
    private var drawn = false
    /// How often a plain line is written when standard error is not a terminal.
    private let plainInterval: Duration
    private static let terminalInterval = Duration.milliseconds(100)

    /// - Parameters:
    ///   - label: What is being done (`importing`).
    ///   - unit: What is counted (`documents`).
    init(stream: OutputStream, label: String, unit: String, plainInterval: Duration = .seconds(2)) {
        self.stream = stream
        self.label = label
        self.unit = unit
        self.plainInterval = plainInterval
        started = clock.now
    }

    /// Shows `completed` items and, when known, the `fraction` done (0...1), unless shown very
    /// recently.
    func update(completed: Int, fraction: Double?) {
        let now = clock.now
        let interval = stream.isTerminal ? Progress.terminalInterval : plainInterval
        if let lastShown, now - lastShown < interval { return }
        if lastShown == nil && !stream.isTerminal {
            lastShown = now // the first plain line comes after one interval, not at once
            return
        }
        lastShown = now
        let rate = Int(Double(completed) / max(seconds(now - started), 0.001))
        if stream.isTerminal {
            var line = "\r\(label) "
            if let fraction {
                let filled = Int((min(max(fraction, 0), 1) * 30).rounded(.down))
                line += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
                line += "\(Int(fraction * 100))%  "
            }
            line += "\(grouped(completed)) \(unit)  \(grouped(rate))/s\u{1B}[K"
            stream.write(line)
            drawn = true
        } else {
            let percent = fraction.map { " (\(Int($0 * 100))%)" } ?? ""
            stream.write("\(label): \(grouped(completed)) \(unit)\(percent)\n")
        }
        stream.flush()
    }

    /// Removes the bar from the terminal, so the summary line stands alone.
    func finish() {
        if drawn {
            stream.write("\r\u{1B}[K")
            stream.flush()
        }
    }

    /// The seconds since the start.
    var elapsedSeconds: Double { seconds(clock.now - started) }

    private func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) / 1e18
    }
}
