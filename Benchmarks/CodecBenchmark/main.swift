// Codec benchmark: one 6-field Message, encoded and decoded by every path the store offers and by
// Foundation's JSON peers, in the same run. Release builds only.
//
//   swift run -c release CodecBenchmark
//
// Method: each case runs `warmup` iterations, then `samples` timed batches of `iterations`;
// the line shows the median batch in ns per operation and the ratio to JSONDecoder's median.
// Batches are timed with the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), not the wall clock,
// so time the thread spends descheduled on a busy machine is not counted.
// Every case folds its result into a checksum that is printed, so no work can be optimised away.
import DataStoreCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Refuses to run a debug build: its numbers would be meaningless.
func refuseDebugBuild() {
    #if DEBUG
    print("""
        ************************************************************
        *  CodecBenchmark was built in DEBUG. Its numbers would be  *
        *  meaningless. Run:  swift run -c release CodecBenchmark  *
        ************************************************************
        """)
    exit(1)
    #endif
}

refuseDebugBuild()

/// The seed README's Message (typo `tyoe` fixed).
final class Message: ObjectCoder {
    var id: String?
    var from_user_key: String?
    var to_user_key: String?
    var message: String?
    var created_ts: Double?
    var type: String?

    static func identifierKey() -> String { "id" }

    required init(dictionary withDictionary: [String: Any]) {
        id = withDictionary["id"] as? String
        from_user_key = withDictionary["from_user_key"] as? String
        to_user_key = withDictionary["to_user_key"] as? String
        message = withDictionary["message"] as? String
        type = withDictionary["type"] as? String
        created_ts = withDictionary["created_ts"] as? Double
    }

    func toDictionary() -> [String: Any] {
        [
            "id": id ?? "", "from_user_key": from_user_key ?? "", "to_user_key": to_user_key ?? "",
            "message": message ?? "", "type": type ?? "", "created_ts": created_ts ?? Date().timeIntervalSince1970,
        ]
    }
}

/// The same six fields as a Codable struct.
struct MessageRecord: Codable {
    var id: String
    var from_user_key: String
    var to_user_key: String
    var message: String
    var type: String
    var created_ts: Double
}

let record = MessageRecord(
    id: "5f1c2a9e-8d3b-4c7a-9e21-6b0d4f3a8c11", from_user_key: "1234567890", to_user_key: "0987654321",
    message: "Running ten minutes late — traffic on the bridge. Order me the usual and I'll be there soon!",
    type: "text", created_ts: 1_437_108_600.25)
let dictionary: [String: Any] = [
    "id": record.id, "from_user_key": record.from_user_key, "to_user_key": record.to_user_key,
    "message": record.message, "type": record.type, "created_ts": record.created_ts,
]
let message = Message(dictionary: dictionary)
let document = try DocumentEncoder().encode(record)
let recordBytes = RecordCodec.encode(document)
let jsonData = try JSONEncoder().encode(record)
let serializedData = try JSONSerialization.data(withJSONObject: dictionary)

nonisolated(unsafe) var checksum = 0

/// CPU time consumed by this thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

struct Result {
    let name: String
    let nanoseconds: Double
}

/// Command-line options, for profiling one case under callgrind:
///
/// - `CodecBenchmark [substring]` runs only the cases whose names contain `substring`;
///   JSONDecoder always runs, as the reference for the ratios.
/// - `--only <substring>` runs only the matching cases, without the JSONDecoder reference.
/// - `--iterations <N>` runs every selected case exactly N times, once, with no warm-up, so that
///   two runs with different N, differenced, give the cost per operation without start-up:
///
///       valgrind --tool=callgrind .build/release/CodecBenchmark --only "RecordDecoder" --iterations 20000
struct Options {
    var filter: String?
    var only: String?
    var iterations: Int?

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--only": only = rest.popFirst()
            case "--iterations": iterations = rest.popFirst().flatMap { Int($0) }
            default: filter = argument
            }
        }
    }

    /// Whether the case called `name` runs.
    func selects(_ name: String) -> Bool {
        if let only { return name.contains(only) }
        if let filter { return name.contains(filter) || name.contains("JSONDecoder") }
        return true
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

func measure(_ name: String, iterations: Int = 20_000, samples: Int = 7, warmup: Int = 2_000, _ body: () throws -> Int) rethrows -> Result {
    guard options.selects(name) else { return Result(name: name, nanoseconds: .nan) }
    if let fixed = options.iterations {
        let start = threadCPUNanoseconds()
        for _ in 0..<fixed { checksum &+= try body() }
        return Result(name: name, nanoseconds: Double(threadCPUNanoseconds() - start) / Double(max(fixed, 1)))
    }
    for _ in 0..<warmup { checksum &+= try body() }
    var timings: [Double] = []
    for _ in 0..<samples {
        let start = threadCPUNanoseconds()
        for _ in 0..<iterations { checksum &+= try body() }
        timings.append(Double(threadCPUNanoseconds() - start) / Double(iterations))
    }
    return Result(name: name, nanoseconds: timings.sorted()[samples / 2])
}

var results: [Result] = []

// MARK: Decoding
results.append(try measure("decode  record → Codable (RecordDecoder)") {
    try RecordDecoder().decode(MessageRecord.self, from: recordBytes).message.utf8.count
})
results.append(try measure("decode  record → RecordDecodable (init(record:))") {
    try recordBytes.withUnsafeBytes { try MessageRecord(record: RecordFields(unsafeBytes: $0)) }.message.utf8.count
})
results.append(try measure("decode  record → Document (RecordCodec)") {
    try RecordCodec.decode(recordBytes).count
})
results.append(try measure("decode  record → one field (RecordCodec.field)") {
    try RecordCodec.field("created_ts", in: recordBytes)?.intValue.map { Int($0) } ?? 1
})
results.append(try measure("decode  record → Document → Codable (DocumentDecoder)") {
    try DocumentDecoder().decode(MessageRecord.self, from: RecordCodec.decode(recordBytes)).message.utf8.count
})
results.append(try measure("decode  record → Document → ObjectCoder (Message)") {
    Message(dictionary: try RecordCodec.decode(recordBytes).toDictionary()).message?.utf8.count ?? 0
})
let jsonDecoder = JSONDecoder()
let jsonDecode = try measure("decode  JSON → Codable (JSONDecoder)", iterations: 2_000, warmup: 200) {
    try jsonDecoder.decode(MessageRecord.self, from: jsonData).message.utf8.count
}
results.append(jsonDecode)
results.append(try measure("decode  JSON → ObjectCoder (JSONSerialization)", iterations: 2_000, warmup: 200) {
    let object = try JSONSerialization.jsonObject(with: serializedData) as! [String: Any]
    return Message(dictionary: object).message?.utf8.count ?? 0
})

// MARK: Encoding
results.append(measure("encode  Document → record (RecordCodec)") {
    RecordCodec.encode(document).count
})
results.append(try measure("encode  Codable → Document → record (DocumentEncoder)") {
    RecordCodec.encode(try DocumentEncoder().encode(record)).count
})
results.append(try measure("encode  ObjectCoder → Document → record (Message)") {
    RecordCodec.encode(try Document(dictionary: message.toDictionary())).count
})
let jsonEncoder = JSONEncoder()
results.append(try measure("encode  Codable → JSON (JSONEncoder)", iterations: 2_000, warmup: 200) {
    try jsonEncoder.encode(record).count
})
results.append(try measure("encode  ObjectCoder → JSON (JSONSerialization)", iterations: 2_000, warmup: 200) {
    try JSONSerialization.data(withJSONObject: message.toDictionary()).count
})

print("CodecBenchmark: Message, 6 fields, record \(recordBytes.count) B, JSON \(jsonData.count) B")
let width = results.map(\.name.count).max() ?? 0
for result in results where !result.nanoseconds.isNaN {
    let name = result.name.padding(toLength: width, withPad: " ", startingAt: 0)
    let ns = String(format: "%10.1f", result.nanoseconds)
    let ratio = String(format: "%7.3f", result.nanoseconds / jsonDecode.nanoseconds)
    print("\(name)  \(ns) ns/op  \(ratio)× JSONDecoder")
}
print("checksum \(checksum)")

/// The hand-written fast path: each field read by name straight from the record's bytes.
extension MessageRecord: RecordDecodable {
    init(record: borrowing RecordFields) throws {
        id = try record.string("id") ?? ""
        from_user_key = try record.string("from_user_key") ?? ""
        to_user_key = try record.string("to_user_key") ?? ""
        message = try record.string("message") ?? ""
        type = try record.string("type") ?? ""
        created_ts = try record.double("created_ts") ?? 0
    }
}
