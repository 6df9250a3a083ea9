public import DataStoreCore

/// Where the next page of a query starts: an opaque continuation token handed out with each
/// ``Page`` (`StoreCollection.page(params:options:size:after:)`).
///
/// It holds the position just after the page's last result — the key of its index entry or
/// record, or its sort values and id — so the next page seeks straight there: rows before it are
/// never read again (as an `offset` would), and documents written meanwhile neither shift the
/// page boundary nor repeat a result. Its text is base64url, safe in a URL or a shell argument.
/// A token only fits the collection and the query (conditions and sort) that produced it; any
/// other use throws ``/DataStoreCore/DataStoreError/Code/invalidPageToken``.
public struct PageToken: Sendable, Hashable, CustomStringConvertible {
    /// The token's bytes: a format version, a fingerprint of the collection, query and plan, then
    /// the position.
    public let bytes: [UInt8]

    static let version: UInt8 = 1

    /// A token made of `bytes` (as ``bytes`` gave them).
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The token whose text is `text` (its ``description``).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidPageToken`` when `text` is not base64url.
    public init(_ text: String) throws(DataStoreError) {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw DataStoreError(.invalidPageToken, "page token \(Self.quoted(text)) is not a token this store made")
        }
        self.bytes = bytes
    }

    package init(fingerprint: UInt64, position: ScanPosition) {
        var bytes = [Self.version]
        withUnsafeBytes(of: fingerprint.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: position.bytes)
        self.bytes = bytes
    }

    /// The token as text: base64url without padding.
    public var description: String { Base64URL.encode(bytes) }

    /// The position the token holds, after checking that it was made for `fingerprint`.
    package func position(expecting fingerprint: UInt64, collection: String) throws(DataStoreError) -> ScanPosition {
        guard bytes.count > 9, bytes[0] == Self.version else {
            throw DataStoreError(
                .invalidPageToken, "page token \(Self.quoted(description)) is not a token this store made")
        }
        let stored = bytes[1..<9].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard stored == fingerprint else {
            throw DataStoreError(
                .invalidPageToken,
                "page token \(Self.quoted(description)) was made for another query, collection or plan than this "
                    + "query on \(collection); pass the conditions and sort of the page that gave it, or start again "
                    + "without a token")
        }
        guard let position = ScanPosition(bytes: bytes[9...]) else {
            throw DataStoreError(.invalidPageToken, "page token \(Self.quoted(description)) is damaged")
        }
        return position
    }

    /// A token's text for a message, shortened past 60 characters.
    private static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\"" + shown + "\""
    }
}

/// base64url (RFC 4648 §5) without padding.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var word: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { word |= UInt32(byte) << UInt32(16 - 8 * offset) }
            for position in 0...chunk.count { text.append(alphabet[Int((word >> UInt32(18 - 6 * position)) & 0x3F)]) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        var bits: UInt32 = 0
        var count = 0
        var bytes: [UInt8] = []
        for character in text.utf8 {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                bytes.append(UInt8((bits >> UInt32(count)) & 0xFF))
            }
        }
        // A well-formed text leaves fewer than 6 bits, all zero.
        guard count < 6, bits & ((1 << UInt32(count)) - 1) == 0 else { return nil }
        return bytes
    }
}
