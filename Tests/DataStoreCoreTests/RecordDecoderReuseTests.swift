import Foundation
import Testing

@testable import DataStoreCore

// `RecordDecoder` reuses each thread's top-level decoder and its keyed container from one record to
// the next. These cases would read the wrong record, or the wrong level, if that reuse leaked.

/// A list of nodes nested inside one another: every level asks for the same `CodingKeys`.
private final class Node: Decodable, Sendable {
    let name: String
    let next: Node?

    init(name: String, next: Node?) { (self.name, self.next) = (name, next) }

    var names: [String] { [name] + (next?.names ?? []) }
}

/// Decodes a second record of its own from inside `init(from:)`, then goes on reading its first.
private struct Wrapper: Decodable {
    static let innerRecord = try! RecordCodec.encode(["name": "inner", "count": 7])

    let name: String
    let inner: Counted
    let count: Int

    enum CodingKeys: String, CodingKey { case name, count }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        inner = try RecordDecoder().decode(Counted.self, from: Self.innerRecord)
        count = try container.decode(Int.self, forKey: .count)
    }
}

/// The same keys as ``Wrapper``'s, through a different `CodingKeys` type.
private struct Counted: Decodable, Equatable {
    let name: String
    let count: Int
}

/// Asks for keyed containers at the top level with two key types, the first again after the
/// second, as a subclass and its superclass decoding from one decoder do.
private struct TwoViews: Decodable {
    let name: String
    let count: Int
    let nameAgain: String

    enum NameKeys: String, CodingKey { case name }
    enum CountKeys: String, CodingKey { case count }

    init(from decoder: any Decoder) throws {
        let names = try decoder.container(keyedBy: NameKeys.self)
        let counts = try decoder.container(keyedBy: CountKeys.self)
        count = try counts.decode(Int.self, forKey: .count)
        name = try names.decode(String.self, forKey: .name)
        nameAgain = try decoder.container(keyedBy: NameKeys.self).decode(String.self, forKey: .name)
    }
}

/// A class whose superclass decodes its own keys from the same decoder.
private class Named: Decodable, @unchecked Sendable {
    let name: String
}

private final class NamedCount: Named, @unchecked Sendable {
    let count: Int

    enum CodingKeys: String, CodingKey { case count }

    required init(from decoder: any Decoder) throws {
        count = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .count)
        try super.init(from: decoder)
    }
}

/// Holds what a thread left behind, for the test that waits for it to end.
private final class ThreadResult: @unchecked Sendable {
    weak var decoder: SourceDecoder?
    var decoded: Counted?
    let done = DispatchSemaphore(value: 0)
}

@Suite("RecordDecoder reusing its decoder")
struct RecordDecoderReuseTests {
    private func record(_ document: Document) throws -> [UInt8] { try RecordCodec.encode(document) }

    @Test("records decoded one after another each read their own bytes")
    func successiveRecords() throws {
        let records = try (0..<50).map { try record(["name": .string("n\($0)"), "count": .int(Int64($0))]) }
        for (number, bytes) in records.enumerated() {
            #expect(try RecordDecoder().decode(Counted.self, from: bytes) == Counted(name: "n\(number)", count: number))
        }
    }

    @Test("a type nested in itself reads each level, not the top one")
    func recursiveType() throws {
        let bytes = try record([
            "name": "a", "next": ["name": "b", "next": ["name": "c", "next": nil]]
        ])
        #expect(try RecordDecoder().decode(Node.self, from: bytes).names == ["a", "b", "c"])
        // And again, now that the thread's decoder keeps a container of `Node`'s keys.
        #expect(try RecordDecoder().decode(Node.self, from: bytes).names == ["a", "b", "c"])
        let other = try record(["name": "x", "next": nil])
        #expect(try RecordDecoder().decode(Node.self, from: other).names == ["x"])
    }

    @Test("a decode started inside another's init(from:) leaves the outer record in place")
    func nestedDecode() throws {
        let bytes = try record(["name": "outer", "count": 1])
        for _ in 0..<3 {
            let wrapper = try RecordDecoder().decode(Wrapper.self, from: bytes)
            #expect(wrapper.name == "outer")
            #expect(wrapper.count == 1)
            #expect(wrapper.inner == Counted(name: "inner", count: 7))
        }
    }

    @Test("types that alternate, and two key types at one level, each get their own container")
    func alternatingTypes() throws {
        for number in 0..<4 {
            let bytes = try record(["name": .string("n\(number)"), "count": .int(Int64(number))])
            #expect(try RecordDecoder().decode(Counted.self, from: bytes) == Counted(name: "n\(number)", count: number))
            let views = try RecordDecoder().decode(TwoViews.self, from: bytes)
            #expect(views.name == "n\(number)" && views.count == number && views.nameAgain == "n\(number)")
            let named = try RecordDecoder().decode(NamedCount.self, from: bytes)
            #expect(named.name == "n\(number)" && named.count == number)
        }
    }

    @Test("a thread that ends releases its decoder")
    func threadExit() throws {
        let bytes = try record(["name": "n", "count": 1])
        let result = ThreadResult()
        let thread = Thread {
            result.decoded = try? RecordDecoder().decode(Counted.self, from: bytes)
            result.decoder = ThreadRecordDecoder.slot().decoder
            result.done.signal()
        }
        thread.start()
        result.done.wait()
        #expect(result.decoded == Counted(name: "n", count: 1))
        // The thread's keys are destroyed after its body returns: wait for that, boundedly.
        for _ in 0..<5_000 where result.decoder != nil { usleep(1_000) }
        #expect(result.decoder == nil)
    }

    @Test("a decode that fails leaves the thread's decoder ready for the next record")
    func afterFailure() throws {
        let wrongType = try record(["name": "n", "count": "three"])
        let missing = try record(["name": "n"])
        let damaged: [UInt8] = try {
            var bytes = try record(["name": "n", "count": 3])
            bytes.removeLast()
            return bytes
        }()
        for bad in [wrongType, missing, damaged] {
            #expect(throws: DecodingError.self) { try RecordDecoder().decode(Counted.self, from: bad) }
            let good = try record(["name": "ok", "count": 5])
            #expect(try RecordDecoder().decode(Counted.self, from: good) == Counted(name: "ok", count: 5))
        }
    }

    @Test("threads decoding at once each read their own records")
    func concurrentThreads() async throws {
        let records = try (0..<200).map { try record(["name": .string("n\($0)"), "count": .int(Int64($0))]) }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for offset in 0..<8 {
                group.addTask {
                    var checked = 0
                    for round in 0..<400 {
                        let number = (round * 7 + offset) % records.count
                        let decoded = try RecordDecoder().decode(Counted.self, from: records[number])
                        if decoded == Counted(name: "n\(number)", count: number) { checked += 1 }
                    }
                    return checked
                }
            }
            var total = 0
            for try await checked in group { total += checked }
            #expect(total == 8 * 400)
        }
    }
}
