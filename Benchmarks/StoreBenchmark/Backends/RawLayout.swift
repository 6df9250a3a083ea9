// The raw LMDB backend's byte layout, written by hand for the one Message shape: the same bytes
// DataStoreKit stores (docs/encoding.md), so the floor stores and reads exactly what the store
// does, without the generic machinery. `RawLayout.check` proves the bytes are identical.
import DataStoreCore
#if canImport(Glibc)
import Glibc
#endif

enum RawLayout {
    // MARK: Ordered keys (docs/encoding.md, "Ordered key format")

    /// A string component: `40`, the UTF-8 bytes with `00` escaped as `00 FF`, then `00 01`.
    static func appendString(_ text: String, to key: inout [UInt8]) {
        key.append(0x40)
        for byte in text.utf8 {
            key.append(byte)
            if byte == 0 { key.append(0xFF) }
        }
        key.append(0x00)
        key.append(0x01)
    }

    /// A number component for a double (no NaN in the dataset): `30`, the order-preserving
    /// binary64 bits big-endian, then the exactness suffix `00`.
    static func appendDouble(_ number: Double, to key: inout [UInt8]) {
        key.append(0x30)
        let bits = (number == 0 ? 0.0 : number).bitPattern
        let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            key.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift)))
        }
        key.append(0x00)
    }

    static func idKey(_ id: String) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(id.utf8.count + 3)
        appendString(id, to: &key)
        return key
    }

    /// The index key suffix: the record key, then its length in one byte.
    static func appendIDSuffix(_ idKey: [UInt8], to key: inout [UInt8]) {
        key.append(contentsOf: idKey)
        key.append(UInt8(idKey.count))
    }

    static func createdKey(_ message: Message, idKey: [UInt8]) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(11 + idKey.count + 1)
        appendDouble(message.created_ts, to: &key)
        appendIDSuffix(idKey, to: &key)
        return key
    }

    static func stringKey(_ value: String, idKey: [UInt8]) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(value.utf8.count + 3 + idKey.count + 1)
        appendString(value, to: &key)
        appendIDSuffix(idKey, to: &key)
        return key
    }

    static func pairKey(_ message: Message, idKey: [UInt8]) -> [UInt8] {
        var key: [UInt8] = []
        appendString(message.from_user_key, to: &key)
        appendString(message.to_user_key, to: &key)
        appendIDSuffix(idKey, to: &key)
        return key
    }

    /// The record key at the end of an index key.
    static func idKey(inIndexKey key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let length = Int(key[key.count - 1])
        return UnsafeRawBufferPointer(rebasing: key[(key.count - 1 - length)..<(key.count - 1)])
    }

    // MARK: Records (docs/encoding.md, "Record format, version 1"), after an 8-byte version

    static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt32(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private static func appendName(_ name: StaticString, to bytes: inout [UInt8]) {
        appendVarint(name.utf8CodeUnitCount, to: &bytes)
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    private static func appendStringValue(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(0x09)
        appendVarint(text.utf8.count, to: &bytes)
        bytes.append(contentsOf: text.utf8)
    }

    /// The record body: version 1, six entries in name-byte order.
    static func appendBody(_ message: Message, to bytes: inout [UInt8]) {
        bytes.append(0x01)
        bytes.append(6)
        appendName("created_ts", to: &bytes)
        bytes.append(0x08)
        withUnsafeBytes(of: message.created_ts.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        appendName("from_user_key", to: &bytes)
        appendStringValue(message.from_user_key, to: &bytes)
        appendName("id", to: &bytes)
        appendStringValue(message.id, to: &bytes)
        appendName("message", to: &bytes)
        appendStringValue(message.message, to: &bytes)
        appendName("to_user_key", to: &bytes)
        appendStringValue(message.to_user_key, to: &bytes)
        appendName("type", to: &bytes)
        appendStringValue(message.type, to: &bytes)
    }

    /// The stored value: the writing transaction's id (8 bytes big-endian), then the body.
    static func record(_ message: Message, version: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8 + 80 + message.message.utf8.count + message.id.utf8.count)
        withUnsafeBytes(of: UInt64(version).bigEndian) { bytes.append(contentsOf: $0) }
        appendBody(message, to: &bytes)
        return bytes
    }

    /// Where each field's bytes are in a stored record (string ranges exclude tag and length).
    struct Fields {
        var createdTS = 0.0
        var from = 0..<0
        var id = 0..<0
        var message = 0..<0
        var to = 0..<0
        var type = 0..<0
    }

    struct Malformed: Error {}

    private static func readVarint(_ record: UnsafeRawBufferPointer, _ offset: inout Int) -> Int {
        var value = 0
        var shift = 0
        while true {
            let byte = record[offset]
            offset += 1
            value |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// Finds the six fields of a stored record whose body starts at `start` (after LMDB's 8-byte
    /// version; 0 in a PostgreSQL `record` column). Checks the tags it relies on; trusts the rest
    /// (the floor does not validate what it wrote itself).
    static func fields(of record: UnsafeRawBufferPointer, from start: Int = 8) throws(Malformed) -> Fields {
        var offset = start
        guard record.count > start + 2, record[offset] == 0x01 else { throw Malformed() }
        offset += 1
        let count = readVarint(record, &offset)
        var fields = Fields()
        for _ in 0..<count {
            let nameLength = readVarint(record, &offset)
            let first = record[offset]
            offset += nameLength
            let tag = record[offset]
            offset += 1
            if tag == 0x08 {
                var bits: UInt64 = 0
                for index in 0..<8 { bits |= UInt64(record[offset + index]) << (8 * UInt64(index)) }
                offset += 8
                fields.createdTS = Double(bitPattern: bits)
                continue
            }
            guard tag == 0x09 else { throw Malformed() }
            let length = readVarint(record, &offset)
            let range = offset..<(offset + length)
            offset += length
            switch (nameLength, first) {
            case (13, UInt8(ascii: "f")): fields.from = range
            case (2, UInt8(ascii: "i")): fields.id = range
            case (7, UInt8(ascii: "m")): fields.message = range
            case (11, UInt8(ascii: "t")): fields.to = range
            case (4, UInt8(ascii: "t")): fields.type = range
            default: throw Malformed()
            }
        }
        return fields
    }

    static func string(_ record: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: record[range]), as: UTF8.self)
    }

    static func equals(_ record: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == range.count
                && memcmp(utf8.baseAddress!, record.baseAddress! + range.lowerBound, range.count) == 0
        }
    }

    /// Decodes a stored record into a Message.
    static func decode(_ record: UnsafeRawBufferPointer, from start: Int = 8) throws(Malformed) -> Message {
        let fields = try fields(of: record, from: start)
        return message(record, fields)
    }

    static func message(_ record: UnsafeRawBufferPointer, _ fields: Fields) -> Message {
        Message(
            id: string(record, fields.id), from_user_key: string(record, fields.from),
            to_user_key: string(record, fields.to), message: string(record, fields.message),
            created_ts: fields.createdTS, type: string(record, fields.type))
    }

    // MARK: Proof of "the same layout"

    /// Checks, on `messages`, that the hand-written keys and record bodies are byte for byte what
    /// DataStoreCore's codecs produce, and that the record decodes back. Returns a failure text.
    static func check(_ messages: ArraySlice<Message>) -> String? {
        for message in messages {
            let document: Document
            do { document = try DocumentEncoder().encode(message) } catch { return "DocumentEncoder failed: \(error)" }
            var body: [UInt8] = []
            appendBody(message, to: &body)
            let encoded: [UInt8]
            do { encoded = try RecordCodec.encode(document) } catch { return "RecordCodec.encode failed: \(error)" }
            if body != encoded { return "record body differs for \(message.id)" }
            // What DataStoreKit stores: the message's own RecordEncodable bytes.
            if (try? message.recordBytes()) != body { return "RecordEncodable bytes differ for \(message.id)" }
            if idKey(message.id) != KeyCodec.encode([Value.string(message.id)]) {
                return "id key differs for \(message.id)"
            }
            let id = idKey(message.id)
            var created = KeyCodec.encode([Value.double(message.created_ts)])
            created += id + [UInt8(id.count)]
            if createdKey(message, idKey: id) != created { return "created_ts key differs for \(message.id)" }
            var pair = KeyCodec.encode([Value.string(message.from_user_key), Value.string(message.to_user_key)])
            pair += id + [UInt8(id.count)]
            if pairKey(message, idKey: id) != pair { return "pair key differs for \(message.id)" }
            let stored = record(message, version: 7)
            let decoded = stored.withUnsafeBytes { try? decode($0) }
            if decoded != message { return "raw record does not decode back for \(message.id)" }
        }
        return nil
    }
}
