import Glibc

/// Reads a file (or standard input) line by line through a fixed buffer, so memory holds one
/// line at a time whatever the size of the file.
final class LineReader {
    /// The number of the line last returned, from 1.
    private(set) var lineNumber = 0
    /// The bytes read from the file so far.
    private(set) var bytesRead = 0
    /// The file's size when it is a regular file, for progress; `nil` for a pipe or terminal.
    let totalBytes: Int?

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Where to look for the next line break: the bytes before it have none.
    private var searched = 0
    private var atEnd = false
    private static let chunk = 1 << 16

    /// Reads the file at `path`, or standard input when `path` is `-`.
    /// - Throws: ``ToolError`` `.notFound` or `.storage` naming the path.
    init(path: String) throws(ToolError) {
        if path == "-" {
            descriptor = 0
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                throw ToolError(errno == ENOENT ? .notFound : .storage, "cannot open \(path): \(reason)")
            }
            ownsDescriptor = true
        }
        var status = stat()
        if fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG {
            totalBytes = Int(status.st_size)
        } else {
            totalBytes = nil
        }
        buffer = [UInt8](repeating: 0, count: Self.chunk)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// The next line without its line break (`\n` or `\r\n`), or `nil` at the end of the file.
    /// - Throws: ``ToolError`` `.storage` when reading fails.
    func nextLine() throws(ToolError) -> [UInt8]? {
        while true {
            if let newline = buffer[max(start, searched)..<end].firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[start..<newline])
                start = newline + 1
                searched = start
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                lineNumber += 1
                return line
            }
            if atEnd {
                guard start < end else { return nil }
                let line = Array(buffer[start..<end])
                start = end
                searched = end
                lineNumber += 1
                return line
            }
            searched = end
            try fill()
        }
    }

    /// Moves the unread bytes to the front, grows the buffer when a line fills it, and reads more.
    private func fill() throws(ToolError) {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            end -= start
            searched -= start
            start = 0
        }
        if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(descriptor, bytes.baseAddress! + end, bytes.count - end)
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw ToolError(.storage, "cannot read line \(lineNumber + 1): \(String(cString: strerror(errno)))")
            }
            if count == 0 { atEnd = true }
            end += count
            bytesRead += count
            return
        }
    }
}
