// StoreBenchmark: DataStoreKit side by side with the floor (raw LMDB through its C API, same
// layout, hand-written index maintenance) and the alternative (SQLite, same indexes, WAL,
// synchronous=FULL), on the seed's messages, in one run. Release builds only.
//
//   make run     # quick: 100 000 messages, a few minutes
//   make bench   # full: 1 000 000 messages
//   swift run -c release StoreBenchmark --help
//
// See docs/benchmarks.md for the method and how to read the tables.
import Dispatch
import Foundation

#if DEBUG
print(
    """
    ******************************************************************
    *  StoreBenchmark was built in DEBUG. Its numbers would be        *
    *  meaningless. Run:  make run   (or swift run -c release …)      *
    ******************************************************************
    """)
exit(1)
#else
// The main thread waits on a semaphore rather than in an async main's `dispatch_main`, whose signal
// wait valgrind 3.19 cannot run (Benchmarks/instructions.sh counts instructions under callgrind).
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let configuration = try Configuration.parse(Array(CommandLine.arguments.dropFirst()))
        let report = try await runBenchmark(configuration)
        if let path = configuration.jsonFile {
            try report.writeJSON(to: path)
            progress("report written to \(path)")
        }
        if configuration.json {
            try report.printJSON()
        } else {
            report.printText()
        }
    } catch {
        progress("StoreBenchmark failed: \(error)")
        exit(2)
    }
    finished.signal()
}
finished.wait()
#endif
