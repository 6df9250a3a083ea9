#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Finds the top-level coding keys a `Decodable` type reads, by running its `init(from:)` on a
/// decoder that answers every request with a placeholder (empty strings, zeros, `nil` for
/// optionals, empty arrays) and records the keys asked for.
///
/// A type whose decoding refuses the placeholders (an enum with no case for `""`, a validating
/// initializer) gives no answer: the probe is inconclusive, and `nil` is returned.
@usableFromInline
package enum CodingKeyProbe {
    /// The keys `type` reads at its top level, or `nil` when the probe cannot tell.
    @usableFromInline
    package static func keys<T: Decodable>(of type: T.Type) -> Set<String>? {
        let recorder = KeyRecorder()
        do {
            _ = try T(from: ProbeDecoder(recorder: recorder, level: 0))
        } catch {
            return nil
        }
        return recorder.keys.withLock { $0 }
    }
}

/// The keys asked for at the top level.
private final class KeyRecorder: Sendable {
    let keys = Mutex<Set<String>>([])
}

/// Nested values are probed a few levels deep at most, so a recursive type cannot loop.
private let probeDepth = 8

private struct ProbeError: Error {}

private struct ProbeDecoder: Decoder {
    let recorder: KeyRecorder
    let level: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard level < probeDepth else { throw ProbeError() }
        return KeyedDecodingContainer(ProbeKeyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ProbeUnkeyed() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ProbeSingle(decoder: self) }

    /// A placeholder `T`: the types decoded without `init(from:)` by value, others probed.
    func placeholder<T: Decodable>(_ type: T.Type) throws -> T {
        if let scalar = ProbeSingle.scalar(type) { return scalar }
        if T.self == Date.self { return Date(timeIntervalSince1970: 0) as! T }
        if T.self == Data.self { return Data() as! T }
        if T.self == UUID.self { return UUID() as! T }
        if T.self == URL.self { return URL(string: "probe:")! as! T }
        if T.self == Decimal.self { return Decimal() as! T }
        return try T(from: ProbeDecoder(recorder: recorder, level: level + 1))
    }
}

private struct ProbeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    private func record(_ key: Key) {
        if decoder.level == 0 { _ = decoder.recorder.keys.withLock { $0.insert(key.stringValue) } }
    }

    func contains(_ key: Key) -> Bool {
        record(key)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        record(key)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        record(key)
        return try decoder.placeholder(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        record(key)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        record(key)
        return KeyedDecodingContainer(
            ProbeKeyed<NestedKey>(decoder: ProbeDecoder(recorder: decoder.recorder, level: 1)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        record(key)
        return ProbeUnkeyed()
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        record(key)
        return ProbeDecoder(recorder: decoder.recorder, level: 1)
    }
}

/// An empty array.
private struct ProbeUnkeyed: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { throw ProbeError() }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw ProbeError() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { throw ProbeError() }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeError() }
    mutating func superDecoder() throws -> any Decoder { throw ProbeError() }
}

private struct ProbeSingle: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    /// The placeholder of a scalar type, or `nil` for another type.
    static func scalar<T>(_ type: T.Type) -> T? {
        switch type {
        case is String.Type: return ("" as! T)
        case is Bool.Type: return (false as! T)
        case is Double.Type: return (0.0 as Double as! T)
        case is Float.Type: return (Float(0) as! T)
        case is Int.Type: return (0 as Int as! T)
        case is Int8.Type: return (Int8(0) as! T)
        case is Int16.Type: return (Int16(0) as! T)
        case is Int32.Type: return (Int32(0) as! T)
        case is Int64.Type: return (Int64(0) as! T)
        case is UInt.Type: return (UInt(0) as! T)
        case is UInt8.Type: return (UInt8(0) as! T)
        case is UInt16.Type: return (UInt16(0) as! T)
        case is UInt32.Type: return (UInt32(0) as! T)
        case is UInt64.Type: return (UInt64(0) as! T)
        default: return nil
        }
    }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.placeholder(type) }
}
