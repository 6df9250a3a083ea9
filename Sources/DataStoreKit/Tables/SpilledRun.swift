import DataStoreCore
import Glibc

/// A sorted run of index entries written to a file beside the store, read back block by block
/// for the merge. The file is unlinked as soon as it is made, so nothing is left behind, even
/// by a crash.
///
/// Each entry is its key's and its value's byte counts (32-bit little-endian), then the bytes.
final class SpilledRun {
    private let descriptor: Int32
    private let path: String
    private var readOffset = 0
    private var pending: [UInt8] = []
    /// Where `fill` reads to, kept between blocks so a block costs no allocation.
    private var readBuffer: [UInt8] = []
    private var atEnd = false

    /// How much is read back at a time (the merge holds one block per run).
    private let readBytes: Int

    /// Writes the entries of `run`, in its order, to a new file in `directory`; it will be read
    /// back `readBytes` at a time.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/storage`` naming the file when it cannot be made or written.
    init(writing run: EntryRun, in directory: String, readBytes: Int) throws(DataStoreError) {
        self.readBytes = readBytes
        var template = Array((directory + "/index-build-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard descriptor >= 0 else {
            throw DataStoreError(
                .storage, "an index build cannot make its sorted-run file in \(directory): \(Self.errorText())")
        }
        self.descriptor = descriptor
        unlink(path)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Self.blockBytes + 1_024)
        var failure: DataStoreError?
        run.forEach(in: 0..<run.count) { key, value in
            guard failure == nil else { return }
            Self.appendCount(key.count, to: &buffer)
            Self.appendCount(value.count, to: &buffer)
            buffer.append(contentsOf: key)
            buffer.append(contentsOf: value)
            if buffer.count >= Self.blockBytes {
                failure = flush(&buffer)
            }
        }
        if let failure { throw failure }
        if let failure = flush(&buffer) { throw failure }
    }

    deinit { close(descriptor) }

    /// How much is written at a time.
    static let blockBytes = 1 << 20

    /// The next entries, about a block's worth, or `nil` after the last.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/storage`` when the file cannot be read or is cut short.
    func nextBlock() throws(DataStoreError) -> EntryRun? {
        var block = EntryRun()
        while true {
            var position = 0
            pending.withUnsafeBytes { bytes in
                while let (key, value) = Self.entry(in: bytes, at: position) {
                    block.append(key: key, value: value)
                    position = value.baseAddress! - bytes.baseAddress! + value.count
                }
            }
            pending.removeFirst(position)
            if !block.isEmpty { return block }
            if atEnd {
                guard pending.isEmpty else {
                    throw DataStoreError(.storage, "the index build's sorted run \(path) is cut short")
                }
                return nil
            }
            try fill()
        }
    }

    /// The entry that starts at `position` of `bytes`, when it is there whole.
    private static func entry(in bytes: UnsafeRawBufferPointer, at position: Int)
        -> (UnsafeRawBufferPointer, UnsafeRawBufferPointer)?
    {
        guard bytes.count - position >= 8 else { return nil }
        let keyCount = Int(bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian)
        let valueCount = Int(bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian)
        let keyStart = position + 8
        guard bytes.count - keyStart >= keyCount + valueCount else { return nil }
        return (
            UnsafeRawBufferPointer(rebasing: bytes[keyStart..<(keyStart + keyCount)]),
            UnsafeRawBufferPointer(rebasing: bytes[(keyStart + keyCount)..<(keyStart + keyCount + valueCount)])
        )
    }

    /// The whole length of the entry at `position` of `bytes` when its counts are there.
    private static func entryLength(at position: Int, in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { bytes in
            guard bytes.count - position >= 8 else { return nil }
            let keyCount = Int(bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian)
            let valueCount = Int(bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian)
            return 8 + keyCount + valueCount
        }
    }

    /// Reads the next block of the file after what is pending.
    private func fill() throws(DataStoreError) {
        // An entry longer than a block is read whole.
        let wanted = max(readBytes, Self.entryLength(at: 0, in: pending) ?? 0)
        if readBuffer.count < wanted { readBuffer = [UInt8](repeating: 0, count: wanted) }
        var read: Int
        repeat {
            read = readBuffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, wanted, off_t(readOffset)) }
        } while read < 0 && errno == EINTR
        guard read >= 0 else {
            throw DataStoreError(.storage, "the index build cannot read its sorted run \(path): \(Self.errorText())")
        }
        pending.append(contentsOf: readBuffer[0..<read])
        readOffset += read
        atEnd = read == 0
    }

    /// Writes `buffer` at the end of the file and empties it; the error, if any.
    private func flush(_ buffer: inout [UInt8]) -> DataStoreError? {
        var written = 0
        while written < buffer.count {
            let count = buffer.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                return DataStoreError(
                    .storage, "the index build cannot write its sorted run \(path): \(Self.errorText())")
            }
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
        return nil
    }

    private static func appendCount(_ count: Int, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(count).littleEndian) { buffer.append(contentsOf: $0) }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
