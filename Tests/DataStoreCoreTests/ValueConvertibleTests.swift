import DataStoreCore
import Foundation
import Testing

@Suite("ValueConvertible and [String: Any] parameters")
struct ValueConvertibleTests {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let date = Date(timeIntervalSince1970: 1_437_108_600.25)

    @Test("each type's value, and back")
    func mapping() throws {
        #expect("a".documentValue == .string("a"))
        #expect(true.documentValue == .bool(true))
        #expect(try Int8(-8).documentValue == .int(-8))
        #expect(try Int16(16).documentValue == .int(16))
        #expect(try Int32(32).documentValue == .int(32))
        #expect(try Int64.min.documentValue == .int(.min))
        #expect(try UInt8(255).documentValue == .int(255))
        #expect(try UInt16(16).documentValue == .int(16))
        #expect(try UInt32.max.documentValue == .int(Int64(UInt32.max)))
        #expect(try UInt(7).documentValue == .int(7))
        #expect(try UInt64(Int64.max).documentValue == .int(.max))
        #expect(Float(0.5).documentValue == .double(0.5))
        #expect(2.25.documentValue == .double(2.25))
        #expect(Self.date.documentValue == .double(1_437_108_600.25))
        #expect(Self.uuid.documentValue == .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(URL(string: "https://example.com/a?b=c")!.documentValue == .string("https://example.com/a?b=c"))
        #expect(
            try Decimal(string: "12345678901234567890.123456789")!.documentValue
                == .string("12345678901234567890.123456789"))
        #expect(Data([1, 2]).documentValue == .bytes([1, 2]))
        #expect(try (nil as Int?).documentValue == .null)
        #expect(try (Optional(3) as Int?).documentValue == .int(3))
        #expect(try [Self.uuid].documentValue == .array([.string(Self.uuid.uuidString)]))
        #expect(Value.int(1).documentValue == .int(1))

        #expect(UInt8(documentValue: .int(255)) == 255)
        #expect(UInt8(documentValue: .int(256)) == nil)
        #expect(Int(documentValue: .double(3)) == 3)
        #expect(Int(documentValue: .double(3.5)) == nil)
        #expect(Float(documentValue: .double(0.1)) == nil)
        #expect(Date(documentValue: .double(1_437_108_600.25)) == Self.date)
        #expect(UUID(documentValue: .string(Self.uuid.uuidString.lowercased())) == Self.uuid)
        #expect(UUID(documentValue: .string("not a uuid")) == nil)
        #expect(Decimal(documentValue: .string("0.1")) == Decimal(string: "0.1"))
        #expect(Decimal(documentValue: .int(42)) == 42)
        #expect((Int?)(documentValue: .null) == .some(nil))
        #expect((Int?)(documentValue: .string("x")) == nil)
        #expect([String](documentValue: .array(["a", 1])) == nil)
    }

    @Test("values no Value holds throw")
    func outOfRange() {
        #expect(throws: CodecError.self) { try UInt64.max.documentValue }
        #expect(throws: CodecError.self) { try Decimal.nan.documentValue }
    }

    @Test("the seed's [String: Any] parameters convert at the edge, Swift types included")
    func anyParameters() throws {
        let paramsDic: [String: Any]? = [
            "from_user_key": "1234567890", "created_ts >=": Self.date, "owner": Self.uuid, "n": UInt16(7),
            "flag": NSNumber(value: true), "tags in": ["a", Self.uuid], "nothing": NSNull()
        ]
        let converted = try #require(try Value.parameters(paramsDic, role: .conditions))
        #expect(converted["from_user_key"] == "1234567890")
        #expect(converted["created_ts >="] == .double(1_437_108_600.25))
        #expect(converted["owner"] == .string(Self.uuid.uuidString))
        #expect(converted["n"] == 7)
        #expect(converted["flag"] == true)
        #expect(converted["tags in"] == ["a", .string(Self.uuid.uuidString)])
        #expect(converted["nothing"] == .null)
        #expect(try Value.parameters(nil, role: .conditions) == nil)
    }

    /// A class of the application's own that adopts the protocol.
    final class Money: ValueConvertible {
        let cents: Int
        init(cents: Int) { self.cents = cents }
        var documentValue: Value { .int(Int64(cents)) }
        init?(documentValue value: Value) {
            guard let cents = value.intValue else { return nil }
            self.cents = Int(cents)
        }
    }

    /// Encodes the wrapped value through its own `encode(to:)`, as records written before URL and
    /// Decimal were stored by value hold them.
    struct OwnForm<T: Encodable>: Encodable {
        let value: T
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    @Test("a URL or Decimal stored in its own keyed Codable form still decodes")
    func oldKeyedForms() throws {
        struct Holder: Codable, Equatable {
            var link: URL
            var amount: Decimal
        }
        let holder = Holder(link: URL(string: "https://example.com/x")!, amount: Decimal(string: "-12.5")!)
        let oldLink = try DocumentEncoder().encodeValue(OwnForm(value: holder.link))
        let oldAmount = try DocumentEncoder().encodeValue(OwnForm(value: holder.amount))
        #expect(oldLink.objectValue != nil && oldAmount.objectValue != nil)
        let document: Document = ["link": oldLink, "amount": oldAmount]
        #expect(try DocumentDecoder().decode(Holder.self, from: document) == holder)
        #expect(try RecordDecoder().decode(Holder.self, from: RecordCodec.encode(document)) == holder)
    }

    @Test("an ObjectCoder dictionary may hold UUIDs, URLs and the application's own convertible types")
    func dictionaryFields() throws {
        let document = try Document(dictionary: [
            "owner": Self.uuid, "link": URL(string: "https://example.com")!, "price": Money(cents: 5),
            "amount": Decimal(string: "2.5")!
        ])
        #expect(document["owner"] == .string(Self.uuid.uuidString))
        #expect(document["link"] == "https://example.com")
        #expect(document["price"] == 5)
        #expect(document["amount"] == 2.5) // the dictionary edge's own rule for Decimal: a number
    }

    @Test("a class adopting ValueConvertible converts by its own value, alone and in arrays")
    func ownClass() throws {
        let converted = try Value.parameters(
            [
                "price": Money(cents: 250), "price in": [Money(cents: 1), Money(cents: 2)],
                "numbers": NSArray(array: [1, 2])
            ],
            role: .conditions)
        #expect(converted?["price"] == 250)
        #expect(converted?["price in"] == [1, 2])
        #expect(converted?["numbers"] == [1, 2])
    }

    @Test("an unsupported value is invalidQuery naming the key and the type")
    func unsupportedValue() {
        struct Opaque {}
        let error = #expect(throws: DataStoreError.self) {
            try Value.parameters(["owner": Opaque()], role: .conditions)
        }
        #expect(error?.code == .invalidQuery)
        #expect(error?.message.contains("'owner'") == true)
        #expect(error?.message.contains("Opaque") == true)
        let option = #expect(throws: DataStoreError.self) {
            try Value.parameters(["limit": UInt64.max], role: .options)
        }
        #expect(option?.code == .invalidOption)
        #expect(option?.message.contains("'limit'") == true)
    }

    @Test("Codable stores URL as its string, Decimal exactly, UUID as its string, Date as seconds")
    func codableValues() throws {
        struct Payment: Codable, Equatable {
            var id: UUID
            var link: URL
            var amount: Decimal
            var when: Date
            var links: [URL]
        }
        let payment = Payment(
            id: Self.uuid, link: URL(string: "https://example.com/pay?x=1")!,
            amount: Decimal(string: "1234567890.0123456789")!, when: Self.date,
            links: [URL(string: "file:///tmp/a")!])
        let document = try DocumentEncoder().encode(payment)
        #expect(document["id"] == .string(Self.uuid.uuidString))
        #expect(document["link"] == "https://example.com/pay?x=1")
        #expect(document["amount"] == "1234567890.0123456789")
        #expect(document["when"] == .double(1_437_108_600.25))
        #expect(document["links"] == ["file:///tmp/a"])
        #expect(try DocumentDecoder().decode(Payment.self, from: document) == payment)
        let record = try RecordCodec.encode(document)
        #expect(try RecordDecoder().decode(Payment.self, from: record) == payment)
        // A number stored for a Decimal (by another writer) reads too.
        var numeric = document
        numeric["amount"] = 12.5
        #expect(try DocumentDecoder().decode(Payment.self, from: numeric).amount == Decimal(string: "12.5"))
        numeric["link"] = 3
        #expect(throws: DecodingError.self) { try DocumentDecoder().decode(Payment.self, from: numeric) }
    }
}
