import DataStoreCore

/// The version stored in front of each record: the id of the transaction that wrote it.
enum RecordVersion {
    static let byteCount = 8

    static func append(_ version: Int, to bytes: inout [UInt8]) {
        let raw = UInt64(version).bigEndian
        withUnsafeBytes(of: raw) { bytes.append(contentsOf: $0) }
    }

    static func read(_ record: UnsafeRawBufferPointer) throws(DataStoreError) -> Int {
        guard record.count >= byteCount else {
            throw DataStoreError(.codec, "a stored record of \(record.count) bytes is too short to hold a version")
        }
        let raw = UInt64(bigEndian: record.loadUnaligned(as: UInt64.self))
        guard let version = Int(exactly: raw) else {
            throw DataStoreError(.codec, "a stored record's version \(raw) is beyond any this store writes")
        }
        return version
    }

    /// The document bytes after the version.
    static func body(_ record: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: record[min(byteCount, record.count)...])
    }
}
