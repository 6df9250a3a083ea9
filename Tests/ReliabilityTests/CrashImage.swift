import TestSupport
import DataStoreCrashHelper
import Foundation

/// The store's files as a power cut after some record of a ``PowerLossLog`` could leave them.
///
/// Every write or truncation durable before the cut is there. Of the others issued before the cut,
/// a seeded random choice decides what reached the disk: all of a write, none of it, or each of its
/// 4 KiB pages whole, missing, or torn at 512-byte sectors (each sector kept or not). Writes are
/// applied in the order they were issued. A file is as long as its durable writes and truncations
/// make it, or longer when a kept or torn page of a later write reaches further (what did not reach
/// the disk reads as zeros).
struct CrashImage {
    /// The files' contents, by path relative to the store directory.
    var files: [String: [UInt8]]
    /// How many writes issued before the cut were not durable, and how many of them were kept
    /// whole, in part, or not at all.
    var pending = 0, keptWhole = 0, keptInPart = 0, dropped = 0
}

/// Builds crash images from one log, for cuts in ascending order, keeping the files' state for the
/// longest prefix of records that is wholly durable, so each image costs a copy and the records
/// after that prefix.
struct CrashImageBuilder {
    let log: PowerLossLog
    private let durableAt: [Int]
    /// File numbers left out of images (`lock.mdb`: LMDB rebuilds it, it is never synced).
    private let ignored: Set<Int>
    /// The state after records `0..<prefix`, all of them durable.
    private var base: [Int: [UInt8]] = [:]
    private var prefix = 0

    static let page = 4_096, sector = 512

    init(log: PowerLossLog) {
        self.log = log
        durableAt = log.durableAt()
        ignored = Set(log.fileNames.filter { $0.value.hasSuffix("lock.mdb") }.map(\.key))
    }

    private func isFileChange(_ record: PowerLossLog.Record) -> Bool {
        switch record.kind {
        case .write, .writeZeros, .truncate: !ignored.contains(record.file)
        default: false
        }
    }

    /// The image for a cut after records `0..<cut`. Cuts must not decrease from call to call.
    mutating func image(cut: Int, using random: inout SeededGenerator) -> CrashImage {
        // Grow the durable prefix: records before `cut` whose file changes are all durable by then.
        while prefix < cut, !isFileChange(log.records[prefix]) || durableAt[prefix] < cut {
            if isFileChange(log.records[prefix]) {
                Self.apply(log.records[prefix], of: log, to: &base[log.records[prefix].file, default: []])
            }
            prefix += 1
        }
        var files = base
        var image = CrashImage(files: [:])
        for index in prefix..<cut {
            let record = log.records[index]
            guard isFileChange(record) else { continue }
            if durableAt[index] < cut {
                Self.apply(record, of: log, to: &files[record.file, default: []])
                continue
            }
            image.pending += 1
            switch UInt8.random(in: 0..<3, using: &random) {
            case 0:
                image.dropped += 1
            case 1:
                image.keptWhole += 1
                Self.apply(record, of: log, to: &files[record.file, default: []])
            default:
                image.keptInPart += 1
                Self.applyInPart(record, of: log, to: &files[record.file, default: []], using: &random)
            }
        }
        for (file, contents) in files where !ignored.contains(file) {
            image.files[log.fileNames[file] ?? "file\(file)"] = contents
        }
        return image
    }

    /// Applies all of a write or truncation.
    private static func apply(_ record: PowerLossLog.Record, of log: PowerLossLog, to file: inout [UInt8]) {
        if record.kind == .truncate {
            if record.offset < file.count {
                file.removeSubrange(record.offset...)
            } else {
                file += [UInt8](repeating: 0, count: record.offset - file.count)
            }
            return
        }
        write(record, of: log, range: record.offset..<(record.offset + record.length), to: &file)
    }

    /// Applies part of a write: each 4 KiB page of the file it touches is kept, dropped or torn at
    /// 512-byte sectors. A truncation not yet durable happened or did not.
    private static func applyInPart(
        _ record: PowerLossLog.Record, of log: PowerLossLog, to file: inout [UInt8],
        using random: inout SeededGenerator
    ) {
        if record.kind == .truncate {
            if Bool.random(using: &random) { apply(record, of: log, to: &file) }
            return
        }
        let end = record.offset + record.length
        var start = record.offset
        while start < end {
            let pageEnd = min(end, (start / page + 1) * page)
            switch UInt8.random(in: 0..<5, using: &random) {
            case 0, 1: write(record, of: log, range: start..<pageEnd, to: &file)
            case 2, 3: break
            default:
                // A torn page was written back, so the file reaches its end (as ext4 moves the size
                // on disk page by page), but only some of its sectors reached the platter.
                if file.count < pageEnd { file += [UInt8](repeating: 0, count: pageEnd - file.count) }
                var sectorStart = start
                while sectorStart < pageEnd {
                    let sectorEnd = min(pageEnd, (sectorStart / sector + 1) * sector)
                    if Bool.random(using: &random) { write(record, of: log, range: sectorStart..<sectorEnd, to: &file) }
                    sectorStart = sectorEnd
                }
            }
            start = pageEnd
        }
    }

    /// Writes the bytes of `record` that fall at file offsets `range`.
    private static func write(
        _ record: PowerLossLog.Record, of log: PowerLossLog, range: Range<Int>, to file: inout [UInt8]
    ) {
        if file.count < range.upperBound { file += [UInt8](repeating: 0, count: range.upperBound - file.count) }
        file.withUnsafeMutableBytes { target in
            if record.kind == .writeZeros {
                target.baseAddress!.advanced(by: range.lowerBound).initializeMemory(
                    as: UInt8.self, repeating: 0,
                    count: range.count)
                return
            }
            log.bytes.withUnsafeBytes { source in
                let from = record.payload.lowerBound + (range.lowerBound - record.offset)
                target.baseAddress!.advanced(by: range.lowerBound)
                    .copyMemory(from: source.baseAddress!.advanced(by: from), byteCount: range.count)
            }
        }
    }
}
