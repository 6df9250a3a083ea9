import DataStoreCore
import Foundation
import Testing

/// Every reader and writer of DataStoreCore given input nested 100 000 levels deep: each throws
/// `CodecError.tooDeep` or answers, and none overflows the stack (the test thread's is 8 MiB).
///
/// The inputs themselves are a hazard: Swift releases a nested array, dictionary, `NSArray` or
/// class chain recursively, one stack frame group per level, which overflows 8 MiB long before
/// 100 000 levels. So each deep input is held in a ``Held`` box and released on a thread with a
/// 1 GiB stack (``onLargeStack(_:)``); the code under test runs on the test's own thread, where
/// an unbounded recursion would crash.
@Suite("Deep nesting: no input overflows the stack")
struct DeepNestingTests {
    static let depth = 100_000

    // MARK: The [String: Any] edge

    @Test("[Any] and [String: Any] nested 100 000 deep are tooDeep with their field path")
    func swiftContainers() throws {
        let arrays = onLargeStack { Held<Any>(Self.nestedAny(array: true)) }
        let dictionaries = onLargeStack { Held<Any>(Self.nestedAny(array: false)) }
        defer { release(arrays, dictionaries) }
        for (input, path) in [(arrays, "a[0][0]"), (dictionaries, "a.n.n")] {
            let error = #expect(throws: CodecError.self) { try Document(dictionary: ["a": input.value!]) }
            #expect(error?.code == .tooDeep)
            #expect(error?.fieldPath.hasPrefix(path) == true, "\(String(describing: error?.fieldPath.prefix(20)))")
            #expect(throws: CodecError.self) { try Value(any: input.value!) }
        }
    }

    @Test("NSArray and NSDictionary nested 100 000 deep are tooDeep")
    func foundationContainers() throws {
        let arrays = onLargeStack { () -> Held<Any> in
            var nested: NSArray = [1]
            for _ in 1..<Self.depth { nested = NSArray(object: nested) }
            return Held(nested)
        }
        let dictionaries = onLargeStack { () -> Held<Any> in
            var nested = NSDictionary(object: 1, forKey: "n" as NSString)
            for _ in 1..<Self.depth { nested = NSDictionary(object: nested, forKey: "n" as NSString) }
            return Held(nested)
        }
        defer { release(arrays, dictionaries) }
        for input in [arrays, dictionaries] {
            let error = #expect(throws: CodecError.self) { try Document(dictionary: ["a": input.value!]) }
            #expect(error?.code == .tooDeep)
        }
    }

    @Test("a deep Value or Document inside [String: Any] is tooDeep; toDictionary() and toAny() convert one")
    func valuesInDictionaries() throws {
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false))
        defer { release(deep, object) }
        let error = #expect(throws: CodecError.self) { try Document(dictionary: ["a": deep.value!]) }
        #expect(error?.code == .tooDeep && error?.fieldPath.hasPrefix("a[0][0]") == true)
        #expect(throws: CodecError.self) { try Document(dictionary: ["a": object.value!.objectValue!]) }
        // The other way converts the whole value; the result is as deep, so it is released on the large stack.
        let converted = Held<Any>(deep.value!.toAny())
        let dictionary = Held<Any>(Document(["a": object.value!]).toDictionary())
        var levels = 0
        var next = converted.value
        while let array = next as? [Any] {
            levels += 1
            next = array.first
        }
        #expect(levels == Self.depth)
        release(converted, dictionary)
    }

    // MARK: Records

    @Test("records whose bytes claim 100 000 nested arrays or objects: decode, field and RecordFields are tooDeep")
    func recordReaders() throws {
        for array in [true, false] {
            let record = Self.deepRecord(array: array)
            let error = #expect(throws: CodecError.self) { try RecordCodec.decode(record) }
            #expect(error?.code == .tooDeep)
            #expect(throws: CodecError.self) { try RecordCodec.field("a", in: record) }
            record.withUnsafeBytes { bytes in
                let fields = RecordFields(unsafeBytes: bytes)
                #expect(throws: CodecError.self) { try fields.value("a") }
            }
        }
    }

    @Test("RecordCodec.encode, validate and RecordWriter refuse a 100 000-deep value, naming the field path")
    func recordWriters() throws {
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false))
        defer { release(deep, object) }
        for (input, path) in [(deep, "a[0][0]"), (object, "a.n.n")] {
            let document = Document(["a": input.value!, "b": 1])
            let encoded = #expect(throws: CodecError.self) { try RecordCodec.encode(document) }
            #expect(encoded?.code == .tooDeep && encoded?.fieldPath.hasPrefix(path) == true)
            let validated = #expect(throws: CodecError.self) { try RecordCodec.validate(document) }
            #expect(validated?.code == .tooDeep && validated?.fieldPath.hasPrefix(path) == true)
            var writer = RecordWriter()
            let written = #expect(throws: CodecError.self) { try writer.write(input.value!, for: "a") }
            #expect(written?.code == .tooDeep && written?.fieldPath.hasPrefix(path) == true)
            #expect(try writer.finish() == RecordCodec.encode(Document()))
        }
    }

    // MARK: Codable

    @Test("DocumentEncoder refuses Codable types nested 100 000 deep at level 65, naming the path")
    func documentEncoder() throws {
        let box = onLargeStack { Held(Box.nested(Self.depth)) }
        let tree = onLargeStack { Held(Tree.nested(Self.depth)) }
        defer { release(box, tree) }
        let error = #expect(throws: CodecError.self) { try DocumentEncoder().encode(box.value!) }
        #expect(error?.code == .tooDeep)
        #expect(error?.fieldPath == Array(repeating: "next", count: RecordCodec.maxDepth).joined(separator: "."))
        let treeError = #expect(throws: CodecError.self) { try DocumentEncoder().encodeValue(tree.value!) }
        #expect(treeError?.code == .tooDeep)
        #expect(treeError?.fieldPath == String(repeating: "[0]", count: RecordCodec.maxDepth))
    }

    @Test("RecordDecoder and DocumentDecoder refuse 100 000 nested containers before decoding deeper")
    func decoders() throws {
        for array in [true, false] {
            let record = Self.deepRecord(array: array)
            let error = #expect(throws: DecodingError.self) {
                if array {
                    _ = try RecordDecoder().decode(Root.self, from: record)
                } else {
                    _ = try RecordDecoder().decode(
                        Box.self, from: Self.deepRecord(array: false, field: "next", name: "next"))
                }
            }
            #expect((Self.underlying(error) as? CodecError)?.code == .tooDeep, "\(String(describing: error))")
        }
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false, name: "next"))
        defer { release(deep, object) }
        let error = #expect(throws: DecodingError.self) {
            try DocumentDecoder().decodeValue(Tree.self, from: deep.value!)
        }
        #expect((Self.underlying(error) as? CodecError)?.code == .tooDeep)
        let boxError = #expect(throws: DecodingError.self) {
            try DocumentDecoder().decodeValue(Box.self, from: object.value!)
        }
        #expect((Self.underlying(boxError) as? CodecError)?.code == .tooDeep)
    }

    @Test("the Codable limit itself passes: a record holding 64 levels encodes and decodes, 65 do not")
    func codableLimit() throws {
        // The record is level 1, so its field holds 63 levels.
        let fits = Root(a: .nested(RecordCodec.maxDepth - 1))
        let record = try RecordCodec.encode(try DocumentEncoder().encode(fits))
        let decoded = try RecordDecoder().decode(Root.self, from: record)
        #expect(try DocumentEncoder().encode(decoded) == DocumentEncoder().encode(fits))
        #expect(
            try DocumentDecoder().decode(Root.self, from: RecordCodec.decode(record)).a.depth == RecordCodec.maxDepth
                - 1)
        let error = #expect(throws: CodecError.self) {
            try DocumentEncoder().encode(Root(a: .nested(RecordCodec.maxDepth)))
        }
        #expect(error?.fieldPath == "a" + String(repeating: "[0]", count: RecordCodec.maxDepth - 1))
        let tooDeep = Document(["a": Self.nestedValue(array: true, depth: RecordCodec.maxDepth)])
        let decodeError = #expect(throws: DecodingError.self) { try DocumentDecoder().decode(Root.self, from: tooDeep) }
        #expect(
            (Self.underlying(decodeError) as? CodecError)?.fieldPath == "a"
                + String(repeating: "[0]", count: RecordCodec.maxDepth - 1))
    }

    // MARK: Keys

    @Test(
        "keys: 100 000 nested components are tooDeep; a deep value is written without recursion and cut when truncating"
    )
    func keys() throws {
        for tag: UInt8 in [0x60, 0x70] {
            var key = [UInt8](repeating: tag, count: Self.depth)
            if tag == 0x70 {
                key =
                    Array([[0x70, 0x40, 0x6E, 0x00, 0x01]].joined())
                    + key.dropFirst().flatMap { _ in [0x70, 0x40, 0x6E, 0x00, 0x01] }
            }
            key.append(0x10)
            key += [UInt8](repeating: 0x00, count: Self.depth)
            let error = #expect(throws: CodecError.self) { try KeyCodec.decodeComponents(key) }
            #expect(error?.code == .tooDeep)
        }
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false))
        defer { release(deep, object) }
        for input in [deep, object] {
            var key: [UInt8] = []
            KeyCodec.append(input.value!, to: &key, descending: true)
            #expect(throws: CodecError.self) { try KeyCodec.decodeComponents(key) }
            // A budget too large to cut by length: nesting beyond KeyCodec.maxDepth cuts it, so it decodes.
            var cut: [UInt8] = []
            #expect(KeyCodec.appendTruncating(input.value!, to: &cut, maxBytes: 1 << 30))
            let components = try KeyCodec.decodeComponents(cut)
            #expect(components.count == 1 && components[0].isTruncated)
            #expect(components[0].value.nestingDepth == KeyCodec.maxDepth)
        }
    }

    // MARK: JSON, description, order

    @Test("the JSON writer refuses a 100 000-deep value, naming the field path")
    func jsonWriter() throws {
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false))
        defer { release(deep, object) }
        for (input, path) in [(deep, "[0][0]"), (object, "n.n")] {
            let error = #expect(throws: CodecError.self) { try JSONForm.text(input.value!) }
            #expect(error?.code == .tooDeep && error?.fieldPath.hasPrefix(path) == true)
        }
        let error = #expect(throws: CodecError.self) { try JSONForm.text(Document(["a": object.value!])) }
        #expect(error?.fieldPath.hasPrefix("a.n") == true)
    }

    @Test("description and nestingDepth walk a 100 000-deep value")
    func description() throws {
        let deep = Held(Self.nestedValue(array: true)), object = Held(Self.nestedValue(array: false))
        defer { release(deep, object) }
        #expect(deep.value!.nestingDepth == Self.depth)
        #expect(object.value!.nestingDepth == Self.depth)
        #expect(Document(["a": object.value!]).nestingDepth == Self.depth + 1)
        let text = deep.value!.description
        #expect(text == String(repeating: "[", count: Self.depth) + "1" + String(repeating: "]", count: Self.depth))
        let objectText = Document(["a": object.value!]).description
        #expect(
            objectText.hasPrefix("{\"a\": {\"n\": {\"n\": ")
                && objectText.hasSuffix("\"n\": 1" + String(repeating: "}", count: Self.depth + 1)))
    }

    @Test("comparison, equality and hashing of 100 000-deep values")
    func order() throws {
        let a = Held(Self.nestedValue(array: true)), b = Held(Self.nestedValue(array: true))
        let c = Held(Self.nestedValue(array: true, leaf: 2)), o = Held(Self.nestedValue(array: false))
        let p = Held(Self.nestedValue(array: false, leaf: 2))
        defer { release(a, b, c, o, p) }
        #expect(Value.compare(a.value!, b.value!) == 0)
        #expect(a.value! == b.value!)
        #expect(a.value! < c.value! && !(c.value! < a.value!))
        #expect(Value.compare(o.value!, p.value!) == -1 && Value.compare(p.value!, o.value!) == 1)
        #expect(Document.compare(o.value!.objectValue!, p.value!.objectValue!) == -1)
        #expect(a.value! != o.value!)
        #expect(a.value!.hashValue == b.value!.hashValue)
        #expect(Set([a.value!, b.value!, c.value!]).count == 2)
        #expect(Set([o.value!.objectValue!, p.value!.objectValue!]).count == 2)
    }

    // MARK: Inputs

    /// `[[…[1]…]]` (or `["n": ["n": … 1]]`) with ``depth`` containers, as Swift `Any`.
    static func nestedAny(array: Bool) -> Any {
        var nested: Any = 1
        for _ in 0..<depth { nested = array ? [nested] as [Any] : ["n": nested] as [String: Any] }
        return nested
    }

    /// The same as a `Value`. Building it iterates; releasing it recurses.
    static func nestedValue(array: Bool, leaf: Value = 1, name: String = "n", depth: Int = depth) -> Value {
        var nested = leaf
        for _ in 0..<depth { nested = array ? .array([nested]) : .object([name: nested]) }
        return nested
    }

    /// A record `{"a": [[…null…]]}` (or `{"a": {"n": {"n": … null}}}`, with other names) whose bytes claim ``depth``
    /// nested containers (docs/encoding.md: each container is its tag, its body length, a count
    /// of 1, and an object's entry name). Sizes are computed inside out, then bytes written outside in.
    static func deepRecord(array: Bool, field: String = "a", name: String = "n") -> [UInt8] {
        // Count 1, then an object's entry name.
        let header: [UInt8] = array ? [0x01] : [0x01, UInt8(name.utf8.count)] + Array(name.utf8)
        var bodyLengths: [Int] = []
        var inner = 1 // the null
        for _ in 0..<depth {
            let body = header.count + inner
            bodyLengths.append(body)
            inner = 1 + varint(body).count + body
        }
        var record: [UInt8] = [0x01, 0x01, UInt8(field.utf8.count)] + Array(field.utf8) // version, 1 field, its name
        for body in bodyLengths.reversed() {
            record.append(array ? 0x0B : 0x0C)
            record += varint(body)
            record += header
        }
        record.append(0x01)
        return record
    }

    static func varint(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = [], rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    static func underlying(_ error: DecodingError?) -> (any Error)? {
        if case .dataCorrupted(let context)? = error { return context.underlyingError }
        return nil
    }
}

/// A class chain that codes itself recursively: `{"next": {"next": …}}`.
final class Box: Codable, Sendable {
    let next: Box?

    init(next: Box?) { self.next = next }

    static func nested(_ depth: Int) -> Box {
        var box = Box(next: nil)
        for _ in 1..<depth { box = Box(next: box) }
        return box
    }
}

/// An indirect enum coded as nested arrays: `[[…[1]…]]`.
indirect enum Tree: Codable, Sendable {
    case leaf(Int)
    case list([Tree])

    static func nested(_ depth: Int) -> Tree {
        var tree = Tree.leaf(1)
        for _ in 0..<depth { tree = .list([tree]) }
        return tree
    }

    /// The levels of lists, along the first elements.
    var depth: Int {
        var levels = 0
        var tree = self
        while case .list(let list) = tree, let first = list.first {
            levels += 1
            tree = first
        }
        return levels
    }

    init(from decoder: any Decoder) throws {
        if var elements = try? decoder.unkeyedContainer() {
            var list: [Tree] = []
            while !elements.isAtEnd { list.append(try elements.decode(Tree.self)) }
            self = .list(list)
        } else {
            self = .leaf(try decoder.singleValueContainer().decode(Int.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .leaf(let number):
            var single = encoder.singleValueContainer()
            try single.encode(number)
        case .list(let list):
            var elements = encoder.unkeyedContainer()
            for tree in list { try elements.encode(tree) }
        }
    }
}

/// A record's top level holding a ``Tree``.
struct Root: Codable, Sendable {
    let a: Tree
}

/// A value kept alive across threads, so that it can be released on a large stack.
final class Held<T>: @unchecked Sendable {
    var value: T?
    init(_ value: T?) { self.value = value }
}

/// Runs `body` on a thread with a 1 GiB stack and waits for it: where deep inputs are released,
/// which recurses through every level. (Building them iterates, so it may run anywhere.)
func onLargeStack<T>(_ body: @escaping @Sendable () -> T) -> T {
    let result = Held<T>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        result.value = body()
        done.signal()
    }
    thread.stackSize = 1 << 30
    thread.start()
    done.wait()
    return result.value!
}

/// Releases the values held on a large stack (see ``onLargeStack(_:)``).
func release<each T>(_ held: repeat Held<each T>) {
    for box in repeat each held {
        _ = onLargeStack {
            box.value = nil
            return 0
        }
    }
}
