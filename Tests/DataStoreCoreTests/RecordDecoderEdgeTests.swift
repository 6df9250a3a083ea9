import DataStoreCore
import Foundation
import Testing

/// Reads its keys in an order no record shares, some twice, and through every kind of
/// container the keyed one hands out.
private struct Unusual: Decodable, Equatable {
    var zeta: String
    var alpha: Int
    var again: Int
    var present: Bool
    var point: [String: Double]
    var list: [Int?]
    var parent: String
    var nested: [String]

    enum CodingKeys: String, CodingKey { case zeta, alpha, point, list, parent, nested }
    enum PointKeys: String, CodingKey { case y, x }
    enum ParentKeys: String, CodingKey { case name }

    init(zeta: String, alpha: Int, point: [String: Double], list: [Int?], parent: String, nested: [String]) {
        (self.zeta, self.alpha, again, present, self.point) = (zeta, alpha, alpha, true, point)
        (self.list, self.parent, self.nested) = (list, parent, nested)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zeta = try container.decode(String.self, forKey: .zeta)
        alpha = try container.decode(Int.self, forKey: .alpha)
        again = try container.decode(Int.self, forKey: .alpha)
        present = container.contains(.alpha) && container.contains(.zeta)
        let pointContainer = try container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        point = [
            "y": try pointContainer.decode(Double.self, forKey: .y),
            "x": try pointContainer.decode(Double.self, forKey: .x)
        ]
        var unkeyed = try container.nestedUnkeyedContainer(forKey: .list)
        var list: [Int?] = []
        while !unkeyed.isAtEnd { list.append(try unkeyed.decodeNil() ? nil : try unkeyed.decode(Int.self)) }
        self.list = list
        let parentDecoder = try container.superDecoder(forKey: .parent)
        parent = try parentDecoder.container(keyedBy: ParentKeys.self).decode(String.self, forKey: .name)
        nested = try [String](from: try container.superDecoder(forKey: .nested))
    }
}

/// A type whose keyed container is asked for `super`.
private struct WithSuper: Decodable, Equatable {
    var base: Int

    enum CodingKeys: String, CodingKey { case `super` }

    init(base: Int) { self.base = base }

    init(from decoder: any Decoder) throws {
        let superDecoder = try decoder.container(keyedBy: CodingKeys.self).superDecoder()
        base = try superDecoder.singleValueContainer().decode(Int.self)
    }
}

/// Every special type, as fields and as single values of their own.
private struct Specials: Codable, Equatable {
    var date: Date
    var data: Data
    var url: URL
    var decimal: Decimal
    var bytes: [UInt8]
    var optionalDate: Date?
    var wrapped: Wrapped
}

/// A single-value container holding a `Date`.
private struct Wrapped: Codable, Equatable {
    var date: Date

    init(date: Date) { self.date = date }
    init(from decoder: any Decoder) throws { date = try decoder.singleValueContainer().decode(Date.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date)
    }
}

private struct Numbers: Codable, Equatable {
    var whole: Int
    var real: Double
    var negativeZero: Double
    var big: Int64
    var small: Int8
    var optionals: [Double?]
}

@Suite("RecordDecoder edge cases (each checked against DocumentDecoder)")
struct RecordDecoderEdgeTests {
    /// Decodes `T` from `document` both ways, which must agree.
    private func decodeBoth<T: Decodable & Equatable>(_ type: T.Type, _ document: Document) throws -> T {
        let fromDocument = try DocumentDecoder().decode(type, from: document)
        let fromRecord = try RecordDecoder().decode(type, from: try RecordCodec.encode(document))
        #expect(fromRecord == fromDocument)
        return fromRecord
    }

    @Test("keys read out of the record's order, twice, and through nested and super decoders")
    func unusualKeyOrder() throws {
        let document: Document = [
            "alpha": 7, "zeta": "last", "point": ["x": 1.5, "y": -2], "list": [1, .null, 3],
            "parent": ["name": "p"], "nested": ["a", "b"], "unknown": ["ignored": true]
        ]
        let decoded = try decodeBoth(Unusual.self, document)
        #expect(
            decoded
                == Unusual(
                    zeta: "last", alpha: 7, point: ["x": 1.5, "y": -2], list: [1, nil, 3], parent: "p",
                    nested: ["a", "b"]))
    }

    @Test("superDecoder() reads the field named super")
    func superField() throws {
        #expect(try decodeBoth(WithSuper.self, ["super": 42]) == WithSuper(base: 42))
    }

    @Test("Date, Data, URL, Decimal and [UInt8] decode as fields, optionals and single values")
    func specials() throws {
        let value = Specials(
            date: Date(timeIntervalSince1970: 1_437_108_600.25), data: Data([0, 1, 255]),
            url: URL(string: "https://example.com/a?b=c")!, decimal: Decimal(string: "12.345")!, bytes: [9, 8],
            optionalDate: Date(timeIntervalSince1970: -1), wrapped: Wrapped(date: Date(timeIntervalSince1970: 0)))
        let document = try DocumentEncoder().encode(value)
        #expect(try decodeBoth(Specials.self, document) == value)
    }

    @Test("a [UInt8] stored as an array of numbers still decodes")
    func byteArrayFromNumbers() throws {
        struct Holder: Codable, Equatable { var bytes: [UInt8] }
        #expect(try decodeBoth(Holder.self, ["bytes": [1, 2, 250]]) == Holder(bytes: [1, 2, 250]))
    }

    @Test("numbers keep their kind and bits: Int vs Double, -0.0, Int64 extremes, arrays of optionals")
    func numbers() throws {
        let value = Numbers(
            whole: -5, real: 5, negativeZero: -0.0, big: .min, small: -128, optionals: [nil, 1.5, nil, -0.0])
        let document = try DocumentEncoder().encode(value)
        #expect(document["whole"] == .int(-5))
        let decoded = try decodeBoth(Numbers.self, document)
        #expect(decoded == value)
        #expect(decoded.negativeZero.bitPattern == (-0.0 as Double).bitPattern)
        #expect(decoded.optionals.last??.bitPattern == (-0.0 as Double).bitPattern)
    }

    @Test("a missing field throws keyNotFound naming it; a top-level scalar type mismatches")
    func errors() throws {
        let bytes = try RecordCodec.encode(["real": 1.0])
        #expect {
            _ = try RecordDecoder().decode(Numbers.self, from: bytes)
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "whole"
        }
        for type in [Date.self, Data.self, URL.self, Int.self] as [any Decodable.Type] {
            #expect(throws: DecodingError.self) { _ = try RecordDecoder().decode(type, from: bytes) }
        }
    }

    @Test("a special type in a field of another type reports the field")
    func specialMismatch() throws {
        let bytes = try RecordCodec.encode(["date": "yesterday", "data": 1, "url": 2, "decimal": true])
        #expect {
            _ = try RecordDecoder().decode(Specials.self, from: bytes)
        } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["date"]
        }
    }
}

/// Encodes one key twice (the second value wins) and more fields than a small object has.
private struct Wide: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode("first", forKey: AnyKey("twice"))
        for index in 0..<40 { try container.encode(index, forKey: AnyKey("f\(index)")) }
        try container.encode("second", forKey: AnyKey("twice"))
    }
}

/// A coding key of any name.
private struct AnyKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

@Suite("DocumentEncoder objects")
struct DocumentEncoderObjectTests {
    @Test("a key encoded twice keeps the last value; objects grow past their first room")
    func wideObject() throws {
        let document = try DocumentEncoder().encode(Wide())
        #expect(document.count == 41)
        #expect(document["twice"] == "second")
        #expect(document["f39"] == 39)
        let decoded = try RecordCodec.decode(try RecordCodec.encode(document))
        #expect(decoded == document)
    }
}
