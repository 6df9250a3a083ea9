// StreamBenchmark: the memory bound of lazy reads at full size. Loads N small documents
// (default 1 000 000) into a fresh store, walks every one with a read cursor and with a stream,
// sampling the process's resident memory, and counts from an index, reporting the records the
// count read. Release builds only.
//
//   swift run -c release StreamBenchmark [N]
import BenchmarkSupport
import DataStoreCore
import DataStoreKit
import Foundation

#if DEBUG
print("StreamBenchmark was built in DEBUG; run: swift run -c release StreamBenchmark")
exit(1)
#else
func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

/// Tracks the highest anonymous and resident memory seen while walking, sampling every `every` rows.
struct MemoryWatch {
    let anonymousBefore = processStatusBytes("RssAnon")
    let residentBefore = processStatusBytes("VmRSS")
    var anonymousPeak = 0
    var residentPeak = 0
    var rows = 0

    mutating func saw(every: Int = 10_000) {
        rows += 1
        if rows % every == 0 {
            anonymousPeak = max(anonymousPeak, processStatusBytes("RssAnon"))
            residentPeak = max(residentPeak, processStatusBytes("VmRSS"))
        }
    }

    var line: String {
        "rows \(rows); heap (RssAnon) \(megabytes(anonymousBefore)) before, peak growth "
            + "\(megabytes(max(0, anonymousPeak - anonymousBefore))); resident (VmRSS, mapped file included) "
            + "peak growth \(megabytes(max(0, residentPeak - residentBefore)))"
    }
}

let total = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let path = NSTemporaryDirectory() + "stream-benchmark-\(UUID().uuidString)"
var options = DataStore.Options()
options.durability = .none
let store = try DataStore.open(path: path, options: options)
defer {
    store.close()
    try? FileManager.default.removeItem(atPath: path)
}
let items = try await store.collection("Item", mapping: .documents(idField: "id"), indexes: [IndexDefinition("n")])
let clock = ContinuousClock()
let loadStart = clock.now
for chunk in stride(from: 0, to: total, by: 10_000) {
    try await items.add(
        contentsOf: (chunk..<min(total, chunk + 10_000)).map { number -> Document in
            ["id": .int(Int64(number)), "n": .int(Int64(number % 1_000)), "text": .string("item \(number)")]
        })
}
print("loaded \(total) documents in \(clock.now - loadStart)")

var cursorWatch = MemoryWatch()
var peakBuffered = 0
let cursorStart = clock.now
try items.read(batchSize: 256) { snapshot in
    let cursor = try snapshot.documents(params: ["n >=": 0])
    while let document = try cursor.next() {
        precondition(document["n"] != nil)
        cursorWatch.saw()
    }
    peakBuffered = cursor.peakBuffered
}
print(
    "read cursor (index scan, batch 256): \(cursorWatch.line), most buffered \(peakBuffered), \(clock.now - cursorStart)"
)

var streamWatch = MemoryWatch()
let streamStart = clock.now
for try await document in try items.stream(params: nil, options: ["sort": "id"], pageSize: 1_000) {
    precondition(document["id"] != nil)
    streamWatch.saw()
}
print("stream (id order, page 1000): \(streamWatch.line), \(clock.now - streamStart)")

let counted = try items.countOutcome(Query(params: ["n >=": 500], options: nil))
print("count n >= 500: \(counted.count) from index \(counted.fromIndex), records read \(counted.recordsRead)")
// For contrast, the eager answer holds every document at once.
var eagerWatch = MemoryWatch()
let eager = try items.documents(matching: Query())
eagerWatch.saw(every: 1)
print(
    "eager documents(matching:) of \(eager.count): heap peak growth \(megabytes(max(0, eagerWatch.anonymousPeak - eagerWatch.anonymousBefore)))"
)
precondition(cursorWatch.rows == total && streamWatch.rows == total && counted.recordsRead == 0)
#endif
