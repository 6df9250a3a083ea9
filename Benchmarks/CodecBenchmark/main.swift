// Codec benchmark: one 6-field Message, encoded and decoded by every path the store offers and by
// Foundation's JSON peers, in the same run. Release builds only.
//
//   swift run -c release CodecBenchmark
//
// Method: each case runs `warmup` iterations; then 15 rounds, in each of which every case runs one
// timed batch of `iterations` in turn (so all cases sample the same machine conditions); a line
// shows the case's median batch in ns per operation and JSONDecoder's median divided by it.
// Batches are timed with the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), not the wall clock,
// so time the thread spends descheduled on a busy machine is not counted.
// Every case folds its result into a checksum that is printed, so no work can be optimised away.
import BenchmarkSupport
import DataStoreCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Refuses to run a debug build: its numbers would be meaningless.
func refuseDebugBuild() {
    #if DEBUG
    print(
        """
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
            "message": message ?? "", "type": type ?? "", "created_ts": created_ts ?? Date().timeIntervalSince1970
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

nonisolated(unsafe) var checksum = 0

/// CPU time consumed by this thread, in nanoseconds.
func threadCPUNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
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

/// One benchmark case: `iterations` calls of `body` make one timed batch (about 10 ms).
struct Case {
    let name: String
    var iterations = 20_000
    var warmup = 2_000
    let body: () throws -> Int
}

/// The fixtures and the cases, built inside a function so that the closures capture local values:
/// a closure reading one of main.swift's globals (main-actor isolated in Swift 6) would pay a
/// dynamic isolation check (`swift_task_isCurrentExecutor`, ~220 instructions) on every call.
func makeCases() throws -> (cases: [Case], recordSize: Int, jsonSize: Int) {
    var cases: [Case] = []
    let record = MessageRecord(
        id: "5f1c2a9e-8d3b-4c7a-9e21-6b0d4f3a8c11", from_user_key: "1234567890", to_user_key: "0987654321",
        message: "Running ten minutes late — traffic on the bridge. Order me the usual and I'll be there soon!",
        type: "text", created_ts: 1_437_108_600.25)
    let dictionary: [String: Any] = [
        "id": record.id, "from_user_key": record.from_user_key, "to_user_key": record.to_user_key,
        "message": record.message, "type": record.type, "created_ts": record.created_ts
    ]
    let message = Message(dictionary: dictionary)
    let document = try DocumentEncoder().encode(record)
    let recordBytes = try RecordCodec.encode(document)
    let jsonData = try JSONEncoder().encode(record)
    let serializedData = try JSONSerialization.data(withJSONObject: dictionary)

    // MARK: Decoding
    cases.append(
        Case(name: "decode  record → Codable (RecordDecoder)") {
            try RecordDecoder().decode(MessageRecord.self, from: recordBytes).message.utf8.count
        })
    cases.append(
        Case(name: "decode  record → RecordDecodable (init(record:))") {
            try recordBytes.withUnsafeBytes { try MessageRecord(record: RecordFields(unsafeBytes: $0)) }.message.utf8
                .count
        })
    cases.append(
        Case(name: "decode  record → Document (RecordCodec)") {
            try RecordCodec.decode(recordBytes).count
        })
    cases.append(
        Case(name: "decode  record → one field (RecordCodec.field)") {
            try RecordCodec.field("created_ts", in: recordBytes)?.intValue.map { Int($0) } ?? 1
        })
    cases.append(
        Case(name: "decode  record → Document → Codable (DocumentDecoder)") {
            try DocumentDecoder().decode(MessageRecord.self, from: RecordCodec.decode(recordBytes)).message.utf8.count
        })
    cases.append(
        Case(name: "decode  record → Document → ObjectCoder (Message)") {
            Message(dictionary: try RecordCodec.decode(recordBytes).toDictionary()).message?.utf8.count ?? 0
        })
    let floor = FloorValues(
        strings: [record.id, record.from_user_key, record.to_user_key, record.message, record.type],
        doubles: [record.created_ts])
    cases.append(
        Case(name: "decode  floor: Codable with no reading (FloorDecoder)") {
            try MessageRecord(from: FloorDecoder(values: floor)).message.utf8.count
        })
    cases.append(
        Case(name: "decode  floor: memberwise init, the same values") {
            MessageRecord(
                id: floor.strings[0], from_user_key: floor.strings[1], to_user_key: floor.strings[2],
                message: floor.strings[3], type: floor.strings[4], created_ts: floor.doubles[0]
            ).message.utf8.count
        })
    let jsonDecoder = JSONDecoder()
    cases.append(
        Case(name: jsonDecoderName, iterations: 2_000, warmup: 200) {
            try jsonDecoder.decode(MessageRecord.self, from: jsonData).message.utf8.count
        })
    cases.append(
        Case(name: "decode  JSON → ObjectCoder (JSONSerialization)", iterations: 2_000, warmup: 200) {
            let object = try JSONSerialization.jsonObject(with: serializedData) as! [String: Any]
            return Message(dictionary: object).message?.utf8.count ?? 0
        })

    // MARK: Encoding
    cases.append(
        Case(name: "encode  Document → record (RecordCodec)") {
            try RecordCodec.encode(document).count
        })
    cases.append(
        Case(name: "encode  Codable → Document → record (DocumentEncoder)") {
            try RecordCodec.encode(try DocumentEncoder().encode(record)).count
        })
    cases.append(
        Case(name: "encode  ObjectCoder → Document → record (Message)") {
            try RecordCodec.encode(try Document(dictionary: message.toDictionary())).count
        })
    let jsonEncoder = JSONEncoder()
    cases.append(
        Case(name: "encode  Codable → JSON (JSONEncoder)", iterations: 2_000, warmup: 200) {
            try jsonEncoder.encode(record).count
        })
    cases.append(
        Case(name: "encode  ObjectCoder → JSON (JSONSerialization)", iterations: 400, warmup: 40) {
            try JSONSerialization.data(withJSONObject: message.toDictionary()).count
        })
    return (cases, recordBytes.count, jsonData.count)
}

let jsonDecoderName = "decode  JSON → Codable (JSONDecoder)"
let (cases, recordSize, jsonSize) = try makeCases()

/// Runs the selected cases and returns each one's median nanoseconds per operation.
///
/// The machine's speed drifts from one moment to the next (other tenants, frequency), so the
/// cases run in interleaved rounds — one batch of each case per round, `rounds` rounds — rather
/// than one case after another: every case, JSONDecoder included, samples the same conditions,
/// and each takes the median of its batches.
func run(_ cases: [Case], rounds: Int = 15) throws -> [(name: String, nanoseconds: Double)] {
    let selected = cases.filter { options.selects($0.name) }
    if let fixed = options.iterations {
        return try selected.map { item in
            let start = threadCPUNanoseconds()
            for _ in 0..<fixed { checksum &+= try item.body() }
            return (item.name, Double(threadCPUNanoseconds() - start) / Double(max(fixed, 1)))
        }
    }
    for item in selected {
        for _ in 0..<item.warmup { checksum &+= try item.body() }
    }
    var timings = Array(repeating: [Double](), count: selected.count)
    for _ in 0..<rounds {
        for (index, item) in selected.enumerated() {
            let start = threadCPUNanoseconds()
            for _ in 0..<item.iterations { checksum &+= try item.body() }
            timings[index].append(Double(threadCPUNanoseconds() - start) / Double(item.iterations))
        }
    }
    return zip(selected, timings).map { item, samples in (item.name, samples.sorted()[samples.count / 2]) }
}

let results = try run(cases)
let reference = results.first { $0.name == jsonDecoderName }?.nanoseconds ?? .nan

print("CodecBenchmark: Message, 6 fields, record \(recordSize) B, JSON \(jsonSize) B")
let width = results.map(\.name.count).max() ?? 0
for result in results {
    let name = result.name.padding(toLength: width, withPad: " ", startingAt: 0)
    let ns = String(format: "%10.1f", result.nanoseconds)
    let speedup = String(format: "%7.2f", reference / result.nanoseconds)
    print("\(name)  \(ns) ns/op  JSONDecoder ÷ this: \(speedup)×")
}
if let fast = results.first(where: { $0.name.contains("RecordDecodable") }), !reference.isNaN {
    let ratio = reference / fast.nanoseconds
    let met = ratio >= 10 && fast.nanoseconds < 1_000
    print(
        "goal (record → object ≥ 10× JSONDecoder, well under 1 µs): RecordDecodable \(String(format: "%.0f", fast.nanoseconds)) ns, "
            + "\(String(format: "%.1f", ratio))× — \(met ? "met" : "NOT MET")")
}
if let floor = results.first(where: { $0.name.contains("FloorDecoder") }),
    let memberwise = results.first(where: { $0.name.contains("memberwise") })
{
    print(
        "Codable's own cost (a decoder that reads nothing, less a memberwise init): "
            + String(format: "%.0f ns per object", floor.nanoseconds - memberwise.nanoseconds))
}
print("checksum \(checksum)")

/// The hand-written fast path: each field read by name straight from the record's bytes.
extension MessageRecord: RecordDecodable {
    init(record: borrowing RecordFields) throws {
        self.init(
            id: try record.string("id") ?? "",
            from_user_key: try record.string("from_user_key") ?? "",
            to_user_key: try record.string("to_user_key") ?? "",
            message: try record.string("message") ?? "",
            type: try record.string("type") ?? "",
            created_ts: try record.double("created_ts") ?? 0)
    }
}
