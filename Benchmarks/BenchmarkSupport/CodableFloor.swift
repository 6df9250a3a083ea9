/// The least any `Decoder` can cost a synthesized `init(from:)`: a decoder that reads nothing and
/// hands out ready-made values in the order the initializer asks for them. What it costs above a
/// memberwise initializer given the same values is the price of `Codable`'s machinery alone — the
/// keyed container and its type-erasing box, made per object, and a dynamic call per field — of
/// which a store's decoder can avoid only the making (by handing out one container again).
public struct FloorDecoder: Decoder {
    public let values: FloorValues
    public var codingPath: [any CodingKey] { [] }
    public var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A decoder handing out `values`, from the first.
    public init(values: FloorValues) { self.values = values }

    public func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        values.next = 0
        return KeyedDecodingContainer(FloorContainer<Key>(values: values))
    }

    public func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw FloorValues.unsupported }
    public func singleValueContainer() throws -> any SingleValueDecodingContainer { throw FloorValues.unsupported }
}

/// The values a ``FloorDecoder`` hands out, strings then doubles, each in order.
public final class FloorValues {
    static let unsupported = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not in the floor"))
    public let strings: [String]
    public let doubles: [Double]
    var next = 0

    /// The values to hand out: strings in turn (round and round), and the first double.
    public init(strings: [String], doubles: [Double]) {
        self.strings = strings
        self.doubles = doubles
    }
}

struct FloorContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let values: FloorValues
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        defer { values.next += 1 }
        return values.strings[values.next % values.strings.count]
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        values.doubles[0]
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { throw FloorValues.unsupported }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw FloorValues.unsupported }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { throw FloorValues.unsupported }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { throw FloorValues.unsupported }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { throw FloorValues.unsupported }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { throw FloorValues.unsupported }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { throw FloorValues.unsupported }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { throw FloorValues.unsupported }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { throw FloorValues.unsupported }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { throw FloorValues.unsupported }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { throw FloorValues.unsupported }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { throw FloorValues.unsupported }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { throw FloorValues.unsupported }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw FloorValues.unsupported
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw FloorValues.unsupported
    }

    func superDecoder() throws -> any Decoder { throw FloorValues.unsupported }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw FloorValues.unsupported }
}
