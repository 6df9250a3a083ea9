import DataStoreCore

/// Reads the fields of one change log value, failing with the commit and the field that is short
/// or malformed.
struct ChangeRecordReader {
    let bytes: UnsafeRawBufferPointer
    let commit: Int
    private var offset = 0

    init(bytes: UnsafeRawBufferPointer, commit: Int) {
        self.bytes = bytes
        self.commit = commit
    }

    mutating func integer(byteCount: Int, _ what: @autoclosure () -> String) throws(DataStoreError) -> UInt64 {
        guard bytes.count - offset >= byteCount else { throw truncated(what()) }
        var value: UInt64 = 0
        for index in offset..<offset + byteCount { value = value << 8 | UInt64(bytes[index]) }
        offset += byteCount
        return value
    }

    mutating func string() throws(DataStoreError) -> String {
        let slice = try lengthPrefixed("a collection name")
        guard let name = String(validating: slice, as: UTF8.self) else {
            throw DataStoreError(
                .codec, "the change log entry of commit \(commit) has a collection name that is not UTF-8")
        }
        return name
    }

    mutating func ids() throws(DataStoreError) -> [Value] {
        let count = try integer(byteCount: 4, "an id count")
        var ids: [Value] = []
        for _ in 0..<count {
            let key = try lengthPrefixed("an id")
            let values: [Value]
            do {
                values = try KeyCodec.decode(Array(key))
            } catch {
                throw DataStoreError(
                    .codec, "the change log entry of commit \(commit) holds an id that cannot be read: \(error)",
                    underlying: error)
            }
            guard values.count == 1 else {
                throw DataStoreError(
                    .codec, "the change log entry of commit \(commit) holds an id of \(values.count) components")
            }
            ids.append(values[0])
        }
        return ids
    }

    func expectEnd() throws(DataStoreError) {
        guard offset == bytes.count else {
            throw DataStoreError(
                .codec, "the change log entry of commit \(commit) has \(bytes.count - offset) bytes past its end")
        }
    }

    private mutating func lengthPrefixed(_ what: String) throws(DataStoreError) -> UnsafeRawBufferPointer.SubSequence {
        let length = Int(try integer(byteCount: 2, "the length of \(what)"))
        guard bytes.count - offset >= length else { throw truncated(what) }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    private func truncated(_ what: String) -> DataStoreError {
        DataStoreError(.codec, "the change log entry of commit \(commit) ends before \(what)")
    }
}
