import Glibc

/// Progress of a long command on standard error: a bar redrawn in place on a terminal, a plain
/// line every few seconds otherwise; both show an estimate of the time left when the fraction
/// done is known.
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
        let elapsed = seconds(now - started)
        let status = ProgressLine(
            label: label, unit: unit, completed: completed, fraction: fraction, elapsedSeconds: elapsed)
        if stream.isTerminal {
            // One column short of the width: writing the last column makes some terminals wrap.
            stream.write("\r" + status.text(width: TerminalWidth.of(stream.descriptor) - 1) + "\u{1B}[K")
            drawn = true
        } else {
            stream.write(status.plainText + "\n")
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

/// The width of the terminal on a descriptor: the kernel's (`TIOCGWINSZ`), else `COLUMNS`, else 80.
enum TerminalWidth {
    static func of(_ descriptor: Int32) -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return fromEnvironment(getenv("COLUMNS").map { String(cString: $0) })
    }

    /// `COLUMNS` as a width, or 80 when it is not a positive number.
    static func fromEnvironment(_ columns: String?) -> Int {
        columns.flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80
    }
}
