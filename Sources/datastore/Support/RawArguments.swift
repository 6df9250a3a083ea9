import Glibc

/// The command line as the kernel passed it. `CommandLine.arguments` repairs invalid UTF-8 with
/// U+FFFD, which would store a document other than the one given; this reads the bytes instead
/// and refuses an argument that is not UTF-8, as standard input's JSON is refused.
enum RawArguments {
    /// The arguments after the program name, or the position (1 for the first after it) and
    /// bytes of the first one that is not valid UTF-8.
    static func decoded() -> Result<[String], InvalidArgument> {
        var arguments: [String] = []
        for position in 1..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[position] else { break }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                count: strlen(pointer))
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return .failure(InvalidArgument(position: position, bytes: Array(bytes)))
            }
            arguments.append(text)
        }
        return .success(arguments)
    }

    /// An argument whose bytes are not UTF-8.
    struct InvalidArgument: Error {
        var position: Int
        var bytes: [UInt8]

        /// Names the argument and shows its bytes, invalid ones in hexadecimal.
        var message: String {
            var shown = ""
            for byte in bytes.prefix(80) {
                shown += (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + hex(byte)
            }
            return "argument \(position) is not valid UTF-8 (\(shown)\(bytes.count > 80 ? "…" : "")); "
                + "documents, ids and names must be UTF-8 text"
        }

        private func hex(_ byte: UInt8) -> String {
            let text = String(byte, radix: 16, uppercase: true)
            return text.count == 1 ? "0" + text : text
        }
    }
}
