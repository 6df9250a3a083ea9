// The disk-sync probe and file sizes.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How long the disk takes to make a small write durable, right now.
struct SyncProbe: Codable, Sendable {
    var label: String
    var syncs: Int
    var p50Microseconds: Double
    var p99Microseconds: Double

    /// Times `count` rounds of "overwrite 4 KiB, fsync" on a file in `directory`.
    static func run(_ label: String, in directory: String, count: Int = 200) throws -> SyncProbe {
        let path = directory + "/sync-probe"
        let descriptor = open(path, O_CREAT | O_WRONLY, 0o644)
        guard descriptor >= 0 else { throw BenchmarkFailure("cannot create \(path)") }
        defer {
            close(descriptor)
            unlink(path)
        }
        let block = [UInt8](repeating: 0xA5, count: 4_096)
        var timings: [UInt64] = []
        for round in 0..<count {
            _ = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t((round % 16) * 4_096)) }
            let start = Clock.wall()
            guard fsync(descriptor) == 0 else { throw BenchmarkFailure("fsync failed on \(path)") }
            timings.append(Clock.wall() - start)
        }
        let stats = LatencyStats(timings)
        return SyncProbe(
            label: label, syncs: count, p50Microseconds: stats.p50Microseconds, p99Microseconds: stats.p99Microseconds)
    }
}

/// The size in bytes of the files at `paths` (missing files count 0).
func fileBytes(_ paths: [String]) -> Int {
    paths.reduce(0) { total, path in
        var info = stat()
        return total + (stat(path, &info) == 0 ? Int(info.st_size) : 0)
    }
}

/// A short description of the machine, for the report.
struct MachineInfo: Codable, Sendable {
    var cores: Int
    var memoryGiB: Double
    var kernel: String
    var loadAverage: String
    var swift: String

    static func current() -> MachineInfo {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load =
            (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        #if compiler(>=6.3)
        let swift = "6.3+"
        #else
        let swift = "6.x"
        #endif
        return MachineInfo(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30),
            kernel: release, loadAverage: load, swift: swift)
    }
}
