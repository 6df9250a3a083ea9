// The seed's messages, generated deterministically: the same seed gives the same documents, in the
// same (random) id order, on every machine and in every backend.

/// One message, as the seed's `Message` entity stores it.
struct Message: Codable, Sendable, Hashable {
    var id: String
    var from_user_key: String
    var to_user_key: String
    var message: String
    var created_ts: Double
    var type: String

    /// A digest of the whole message (FNV-1a over every field), folded into the checksums that
    /// keep the work from being optimised away and that must agree across backends.
    var digest: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence<UInt8>>(_ bytes: S) {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01b3
        }
        mix(id.utf8)
        mix(from_user_key.utf8)
        mix(to_user_key.utf8)
        mix(message.utf8)
        mix(type.utf8)
        hash ^= created_ts.bitPattern
        return hash &* 0x0000_0100_0000_01b3
    }
}

/// SplitMix64: a small, fast, seedable generator (the numbers must not depend on the platform).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Generates messages: ids are random (so they arrive in random key order), senders and
/// recipients among `users`, message text of 80–120 ASCII bytes, `created_ts` a Double spread over
/// one year after 2015-07-17, and `type` among four values with a skewed distribution.
struct MessageGenerator {
    static let users = 1_000
    static let firstTimestamp = 1_437_108_600.0
    static let timeSpan = 365.0 * 86_400
    /// The types and their weights in percent; "video" (5 %) is the full-scan filter.
    static let types: [(name: String, percent: Int)] = [("text", 60), ("photo", 20), ("link", 15), ("video", 5)]
    static let words = [
        "running", "late", "traffic", "bridge", "order", "usual", "there", "soon", "meeting", "moved",
        "lunch", "tomorrow", "call", "me", "when", "you", "can", "thanks", "see", "the", "photos",
        "from", "trip", "on", "friday", "weekend", "plans", "are", "still", "open", "coffee", "at",
        "ten", "new", "build", "shipped", "review", "please", "ok", "great", "news", "dinner"
    ]

    private var random: SplitMix64
    private let idPrefix: String

    /// - Parameters:
    ///   - seed: The generator's seed.
    ///   - idPrefix: Prepended to every id (write workloads use it to keep their ids apart).
    init(seed: UInt64, idPrefix: String = "") {
        random = SplitMix64(seed: seed)
        self.idPrefix = idPrefix
    }

    static func userKey(_ number: Int) -> String { String(number) }

    mutating func randomUser() -> String { Self.userKey(Int.random(in: 1...Self.users, using: &random)) }

    mutating func randomTimestamp() -> Double {
        // Millisecond resolution, like the seed's timestamps with a fraction.
        Self.firstTimestamp + (Double(Int.random(in: 0..<Int(Self.timeSpan * 1_000), using: &random)) / 1_000)
    }

    mutating func next() -> Message {
        Message(
            id: randomID(), from_user_key: randomUser(), to_user_key: randomUser(), message: randomText(),
            created_ts: randomTimestamp(), type: randomType())
    }

    mutating func make(_ count: Int) -> [Message] {
        (0..<count).map { _ in next() }
    }

    /// A UUID-shaped random id (36 bytes), lowercase hex.
    private mutating func randomID() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = Array(idPrefix.utf8)
        bytes.reserveCapacity(bytes.count + 36)
        var bits = random.next()
        var more = random.next()
        for position in 0..<32 {
            if position == 8 || position == 12 || position == 16 || position == 20 { bytes.append(UInt8(ascii: "-")) }
            if position == 16 {
                bits = more
                more = 0
            }
            bytes.append(hex[Int(bits & 0xF)])
            bits >>= 4
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func randomText() -> String {
        let length = Int.random(in: 80...120, using: &random)
        var text = ""
        text.reserveCapacity(length + 12)
        while text.utf8.count < length {
            if !text.isEmpty { text += " " }
            text += Self.words.randomElement(using: &random)!
        }
        return String(text.utf8.prefix(length))!
    }

    private mutating func randomType() -> String {
        var roll = Int.random(in: 0..<100, using: &random)
        for type in Self.types {
            if roll < type.percent { return type.name }
            roll -= type.percent
        }
        return Self.types[0].name
    }
}

/// The dataset one run works on, and the parameters of its read workloads, all from one seed.
struct Dataset: Sendable {
    let messages: [Message]
    /// Ids to fetch, in random order (every one stored).
    let lookupIDs: [String]
    /// Lower bounds for `created_ts >= X` that leave at least 100 results.
    let rangeStarts: [Double]
    /// (sender, recipient) pairs taken from stored messages, so each has at least one result.
    let pairs: [(from: String, to: String)]
    /// The full-scan filter: `type == scanType`.
    let scanType = "video"

    init(count: Int, seed: UInt64 = 0x5EED_0001) {
        var generator = MessageGenerator(seed: seed)
        let messages = generator.make(count)
        self.messages = messages
        var random = SplitMix64(seed: seed ^ 0xA5A5)
        lookupIDs = (0..<min(count, 100_000)).map { _ in messages[Int.random(in: 0..<count, using: &random)].id }
        let sorted = messages.map(\.created_ts).sorted()
        let lastStart = sorted[max(0, sorted.count - 101)]
        rangeStarts = (0..<1_000).map { _ in
            Double.random(in: MessageGenerator.firstTimestamp...lastStart, using: &random).rounded()
        }
        pairs = (0..<10_000).map { _ in
            let message = messages[Int.random(in: 0..<count, using: &random)]
            return (message.from_user_key, message.to_user_key)
        }
    }
}
