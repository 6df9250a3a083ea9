import DataStoreCore
@testable import DataStoreKit
import Foundation
import LMDB
#if canImport(Glibc)
import Glibc
#endif

/// A process the reliability tests start, kill and inspect (Tests/ReliabilityTests).
///
/// ```
/// DataStoreCrashHelper saves <dir> [--workers 8] [--count N] [--prefix P]
///                                  [--other P --other-count N] [--file-size-limit BYTES]
/// DataStoreCrashHelper hold-reader <dir>
/// DataStoreCrashHelper schema-writer <dir> [--phases P] [--per-phase N]   (SchemaWorkload.swift)
/// DataStoreCrashHelper declare-index <dir> --name N [--pause-after B]      (SchemaWorkload.swift)
/// DataStoreCrashHelper churn <dir> --count N --go FILE                    (SchemaWorkload.swift)
/// DataStoreCrashHelper compact <dir>                                       (CompactionWorkload.swift)
/// DataStoreCrashHelper failing-commit <dir> --trigger FILE                 (FailingCommitWorkload.swift)
/// DataStoreCrashHelper postgres-saves <url> --stop FILE [--workers N]     (PostgresSavesWorkload.swift)
/// ```
///
/// `saves` runs `workers` tasks, each saving change sets of 3 to 5 documents that share a tag
/// through its own context, and prints `ACK <tag> <count> <removed tag or ->` the moment each save
/// is acknowledged. Without `--count` it runs until killed. With `--file-size-limit` it first
/// lowers `RLIMIT_FSIZE` (ignoring `SIGXFSZ`, so writes fail with `EFBIG` instead of killing the
/// process), stops at the first failed save, prints `ERROR …`, then proves reads still work
/// (`READ <documents>`). With `--other` it waits until the other writer's documents are all
/// visible (`SAW <documents>`).
///
/// `hold-reader` opens the store, prints `OPENED readers=<slots>`, begins a read transaction and
/// holds it (`HOLDING <transaction id>`) until killed.
///
/// Every line is written with one `write(2)` as soon as it is known, so a SIGKILL can lose only
/// lines for saves that were never acknowledged.
@main
struct CrashHelper {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments.count >= 2 else { fail("usage: DataStoreCrashHelper saves|hold-reader <dir> [options]") }
        let mode = arguments.removeFirst()
        let path = arguments.removeFirst()
        let options = Options(arguments)
        do {
            switch mode {
            case "saves": try await saves(path: path, options: options)
            case "hold-reader": try await holdReader(path: path)
            case "powerloss": try await powerLoss(path: path, options: options)
            case "inspect": try await inspect(listPath: path, options: options)
            case "schema-writer": try await schemaWriter(path: path, options: options)
            case "declare-index": try await declareIndex(path: path, options: options)
            case "churn": try await churn(path: path, options: options)
            case "compact": try await compactLoop(path: path)
            case "failing-commit": try await failingCommit(path: path, options: options)
            case "postgres-saves": try await postgresSaves(url: path, options: options)
            default: fail("unknown mode \(mode)")
            }
        } catch {
            fail("\(error)")
        }
    }

    // MARK: saves

    static func saves(path: String, options: Options) async throws {
        if let limit = options.int("--file-size-limit") { limitFileSize(to: limit) }
        let store = try DataStore.open(path: path)
        let items = try await CrashWorkload.collection(in: store)
        emit("READY")
        let workers = options.int("--workers") ?? 8
        let count = options.int("--count")
        let prefix = options.string("--prefix") ?? ""
        let stopAtFirstError = options.int("--file-size-limit") != nil
        let pid = getpid()
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var previous: (tag: String, count: Int)?
                    var n = 0
                    while count.map({ n < $0 }) ?? true {
                        let tag = "\(prefix)\(pid)-\(worker)-\(n)"
                        let size = CrashWorkload.groupSize(n)
                        let removes = CrashWorkload.removesPrevious(n) ? previous : nil
                        do {
                            let context = store.newContext()
                            if let removes {
                                for index in 0..<removes.count {
                                    try context.remove(id: .string("\(removes.tag).\(index)"), from: items)
                                }
                            }
                            for index in 0..<size {
                                try context.add(
                                    CrashItem(tag: tag, of: size, index: index, removes: removes?.tag), to: items)
                            }
                            try await context.save()
                        } catch {
                            emit(errorLine(error))
                            if stopAtFirstError { return 1 }
                            fail("worker \(worker) save \(n) failed: \(error)")
                        }
                        emit(CrashWorkload.ackLine(tag: tag, count: size, removes: removes?.tag))
                        previous = (tag, size)
                        n += 1
                    }
                    return 0
                }
            }
            return await group.reduce(0, +)
        }
        emit(failures > 0 ? "STOPPED \(failures)" : "DONE")
        if failures > 0 {
            // The store must keep serving reads after refusing writes.
            let all = try await items.all()
            emit("READ \(all.count)")
        }
        if let other = options.string("--other"), let otherCount = options.int("--other-count") {
            let expected = expectedDocuments(workers: workers, count: otherCount)
            var seen = 0
            for _ in 0..<3_000 {
                seen = try await items.all().filter { $0.tag.hasPrefix(other) }.count
                if seen >= expected { break }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            emit("SAW \(seen)")
        }
        store.close()
    }

    /// The documents left by `workers` workers that each completed `count` change sets.
    static func expectedDocuments(workers: Int, count: Int) -> Int {
        var total = 0
        for n in 0..<count {
            total += CrashWorkload.groupSize(n)
            if CrashWorkload.removesPrevious(n) { total -= CrashWorkload.groupSize(n - 1) }
        }
        return total * workers
    }

    /// `ERROR <DataStoreError code> <LMDB code or -> <message>`.
    static func errorLine(_ error: any Error) -> String {
        guard let error = error as? DataStoreError else { return "ERROR other - \(error)" }
        let lmdb = (error.underlying as? LMDBError).map { "\($0.code)" } ?? "-"
        return "ERROR \(error.code) \(lmdb) \(error.message)"
    }

    /// Lowers the file-size limit so that growing `data.mdb` past `bytes` fails with `EFBIG`.
    static func limitFileSize(to bytes: Int) {
        // Without this, exceeding the limit delivers SIGXFSZ, whose default action kills the process.
        signal(SIGXFSZ, SIG_IGN)
        var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
        guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else {
            fail("setrlimit(RLIMIT_FSIZE, \(bytes)) failed: errno \(errno)")
        }
    }

    // MARK: hold-reader

    static func holdReader(path: String) async throws {
        let store = try DataStore.open(path: path)
        let items = try await CrashWorkload.collection(in: store)
        emit("OPENED readers=\(try store.environment.info().readersInUse)")
        let transaction = try store.environment.beginRead()
        _ = try items.count()
        emit("HOLDING \(transaction.snapshotID)")
        while true {
            // Keeps `transaction` alive: it is used after the sleep.
            try await Task.sleep(nanoseconds: 1_000_000_000)
            if transaction.snapshotID < 0 { break }
        }
    }
}

/// Command-line options `--name value`.
struct Options {
    private var values: [String: String] = [:]

    init(_ arguments: [String]) {
        var index = 0
        while index + 1 < arguments.count {
            values[arguments[index]] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) -> String? { values[name] }
    func int(_ name: String) -> Int? { values[name].flatMap { Int($0) } }
}

/// Writes one line to standard output with a single `write(2)`.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(1, buffer.baseAddress! + offset, buffer.count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}

func fail(_ message: String) -> Never {
    emit("FATAL \(message)")
    exit(2)
}
