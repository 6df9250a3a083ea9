import DataStoreCrashHelper
import Foundation

/// The log the power-loss recorder (`Tests/PowerLoss/recorder.c`) writes: every write to the
/// store's files, every sync of them and every line the workload printed, in one total order.
struct PowerLossLog {
    enum Kind: UInt32 {
        case name = 1
        case write, writeZeros, sync, syncRange, truncate, marker, msync
    }

    struct Record {
        var kind: Kind
        var file: Int
        var offset: Int
        var length: Int
        /// For `sync`: the first record index the sync does not cover; for `syncRange`: the write it
        /// makes durable.
        var covers: Int
        /// Where the payload lies in ``PowerLossLog/bytes``.
        var payload: Range<Int>
    }

    /// A line the workload printed, and the index of the record that completed it.
    struct Line {
        var record: Int
        var text: String
    }

    let bytes: [UInt8]
    let records: [Record]
    /// Paths relative to the store directory, by file number.
    let fileNames: [Int: String]
    let lines: [Line]

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw LogError("cannot read \(path)") }
        let bytes = [UInt8](data)
        self.bytes = bytes
        var records: [Record] = []
        var names: [Int: String] = [:]
        var lines: [Line] = []
        var pendingLine: [UInt8] = []
        var at = 0
        let header = 32
        while at < bytes.count {
            guard at + header <= bytes.count else { throw LogError("a torn record header at byte \(at)") }
            let start = at
            let word = { (offset: Int) -> Int in
                var value: UInt64 = 0
                for k in 0..<8 { value |= UInt64(bytes[start + offset + k]) << (8 * k) }
                return Int(value)
            }
            let kindAndFile = word(0)
            guard let kind = Kind(rawValue: UInt32(truncatingIfNeeded: kindAndFile)) else {
                throw LogError("unknown record kind \(kindAndFile & 0xffff_ffff) at byte \(at)")
            }
            let length = word(16)
            let carriesBytes = kind == .name || kind == .write || kind == .marker
            let payload = (at + header)..<(at + header + (carriesBytes ? length : 0))
            guard payload.upperBound <= bytes.count else { throw LogError("a torn record payload at byte \(at)") }
            let record = Record(
                kind: kind, file: kindAndFile >> 32, offset: word(8), length: length, covers: word(24),
                payload: payload)
            switch kind {
            case .name: names[record.file] = String(decoding: bytes[payload], as: UTF8.self)
            case .marker:
                for byte in bytes[payload] {
                    if byte == UInt8(ascii: "\n") {
                        lines.append(Line(record: records.count, text: String(decoding: pendingLine, as: UTF8.self)))
                        pendingLine = []
                    } else {
                        pendingLine.append(byte)
                    }
                }
            default: break
            }
            records.append(record)
            at = payload.upperBound
        }
        self.records = records
        self.fileNames = names
        self.lines = lines
    }

    /// For each record, the index of the record at which it became durable (`Int.max` when it
    /// never did): a write or truncation once a later sync of its file began after it, or once its
    /// `O_DSYNC` write returned; other records never.
    func durableAt() -> [Int] {
        var durable = [Int](repeating: .max, count: records.count)
        var waiting: [Int: [Int]] = [:]
        for (index, record) in records.enumerated() {
            switch record.kind {
            case .write, .writeZeros, .truncate: waiting[record.file, default: []].append(index)
            case .sync:
                var list = waiting[record.file] ?? []
                list.removeAll { written in
                    guard written < record.covers else { return false }
                    durable[written] = index
                    return true
                }
                waiting[record.file] = list
            case .syncRange:
                durable[record.covers] = min(durable[record.covers], index)
                waiting[record.file]?.removeAll { $0 == record.covers }
            default: break
            }
        }
        return durable
    }

    /// How many records of each kind the log holds.
    var census: [Kind: Int] { records.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 } }
}

struct LogError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
