// libFuzzer target: the record decoder (docs/encoding.md, record format).
//
// Any input must throw CodecError or decode; never crash, hang or over-allocate. And:
// - an accepted record re-encodes to exactly its bytes (the format is canonical),
// - `RecordCodec.field` agrees with `decode` on every field of an accepted record, and
//   `RecordFields`' accessors and `RecordPredicate` never crash (and the predicates agree with
//   `Condition.matches` on accepted records),
// - `RecordDecoder` into a Codable type never crashes, and agrees with `DocumentDecoder` on the
//   decoded document when both succeed.
import Foundation

struct FuzzShape: Codable {
    struct Inner: Codable {
        var x: Int?
        var y: [Double]?
    }
    var id: String?
    var a: Int?
    var b: Double?
    var c: Bool?
    var d: [String]?
    var e: Inner?
    var f: [Int8]?
    var g: UInt8?
    var h: Data?
    var i: [String: Int]?
}

func recordFuzz(_ bytes: UnsafeRawBufferPointer) {
    let decoded = try? RecordCodec.decode(bytes)
    if let document = decoded {
        let again = Result { () throws(CodecError) in try RecordCodec.encode(document) }
        fuzzCheck(
            (try? again.get())?.elementsEqual(bytes) == true, "accepted record \(Array(bytes)) re-encodes to \(again)")
        fuzzCheck((try? RecordCodec.validate(document)) != nil, "a decoded document does not validate")
        for (name, value) in document {
            let field = try? RecordCodec.field(name, in: bytes)
            fuzzCheck(field == .some(value), "field \(name) reads \(String(describing: field)), decode gave \(value)")
        }
    }
    let fields = RecordFields(unsafeBytes: bytes)
    for name in ["", "a", "d", "id", "zz"] {
        _ = try? RecordCodec.field(name, in: bytes)
        // RecordFields' fast scan must be as safe as the general path on any bytes.
        _ = try? fields.string(name)
        _ = try? fields.double(name)
        _ = try? fields.int(name)
        _ = try? fields.bool(name)
        _ = try? fields.bytes(name)
    }
    // Conditions checked on the bytes never crash, and on an accepted record answer as the
    // condition on the decoded document.
    let conditions = [
        Condition(field: "a", op: .equal, value: 1), Condition(field: "d", op: .notEqual, value: "x"),
        Condition(field: "id", op: .greaterOrEqual, value: "a"), Condition(field: "b", op: .less, value: 2.5),
        Condition(field: "zz", op: .in, value: [1, "a"])
    ]
    for condition in conditions {
        let answer = try? RecordPredicate(condition).matches(record: bytes)
        if let document = decoded {
            fuzzCheck(
                answer == condition.matches(document), "predicate \(condition) answered \(String(describing: answer))")
        }
    }
    let together = try? RecordPredicate.all(RecordPredicate.ordered(conditions), match: bytes)
    if let document = decoded {
        fuzzCheck(
            together == conditions.allSatisfy { $0.matches(document) },
            "RecordPredicate.all answered \(String(describing: together))")
    }
    let direct = try? RecordDecoder().decode(FuzzShape.self, from: bytes)
    if let direct, let document = decoded,
        let viaDocument = try? DocumentDecoder().decode(FuzzShape.self, from: document)
    {
        fuzzCheck(
            String(describing: direct) == String(describing: viaDocument),
            "RecordDecoder gave \(direct), DocumentDecoder gave \(viaDocument)")
    }
}
