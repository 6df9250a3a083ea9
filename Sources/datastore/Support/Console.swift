import Glibc

/// Standard output and standard error, buffered, and whether each is a terminal.
///
/// Used by one task at a time (the command's); `flush()` before the process exits.
final class Console {
    /// Where results go.
    let output: OutputStream
    /// Where errors, notes and progress go.
    let errors: OutputStream

    init(output: OutputStream = OutputStream(descriptor: 1), errors: OutputStream = OutputStream(descriptor: 2)) {
        self.output = output
        self.errors = errors
    }

    /// Writes `text` and a newline to standard output.
    func print(_ text: String) {
        output.write(text)
        output.write("\n")
    }

    /// Writes `datastore: text` and a newline to standard error, at once.
    func note(_ text: String) {
        errors.write("datastore: \(text)\n")
        errors.flush()
    }

    func flush() {
        output.flush()
        errors.flush()
    }
}

/// A file descriptor written through a buffer.
final class OutputStream {
    let descriptor: Int32
    /// Whether the descriptor is a terminal.
    let isTerminal: Bool
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 16

    init(descriptor: Int32) {
        self.descriptor = descriptor
        isTerminal = isatty(descriptor) == 1
        buffer.reserveCapacity(Self.flushThreshold)
    }

    /// Appends `text`, writing the buffer out when it is large.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Appends `bytes`, writing the buffer out when it is large.
    func write(bytes: [UInt8]) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.flushThreshold { flush() }
    }

    /// Writes out everything buffered. A descriptor that refuses writes (a closed pipe) drops them.
    func flush() {
        var start = 0
        buffer.withUnsafeBytes { bytes in
            while start < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + start, bytes.count - start)
                if written < 0 {
                    if errno == EINTR { continue }
                    break
                }
                start += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
