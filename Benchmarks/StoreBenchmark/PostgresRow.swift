// One workload of the PostgreSQL section: DataStoreKit's PostgresStore against the hand-written
// libpq floor on the same server.

struct PostgresRow: Encodable, Sendable {
    var workload: String
    var unit: String
    var dataStoreKit: Double
    var libpq: Double
    /// Results each backend produced in the reference pass (documents returned or written).
    var results: [Int]
    /// Whether both produced the same results and checksums.
    var agree: Bool
    /// The least DataStoreKit ÷ libpq the issue asks for, if any.
    var goal: Double?
    /// Wall-clock µs per operation of a `SELECT 1` measured in the same rounds (reads only).
    var roundTripMicroseconds: Double?
    /// The floor's statement sent unprepared, operations per second (reads only): what parsing
    /// and planning each statement costs, as the store's statements are sent.
    var libpqUnprepared: Double?
    /// The client process's CPU µs per operation: DataStoreKit, libpq (reads only).
    var clientCPUMicroseconds: [Double]?

    var versusLibpq: Double { dataStoreKit / libpq }
    var goalMet: Bool? { goal.map { versusLibpq >= $0 } }
    /// libpq's time per operation in round trips: near 1, the round trip is the floor's whole cost.
    var floorInRoundTrips: Double? { roundTripMicroseconds.map { 1e6 / libpq / $0 } }

    private enum CodingKeys: String, CodingKey {
        case workload, unit, dataStoreKit, libpq, results, agree, goal, roundTripMicroseconds, libpqUnprepared
        case clientCPUMicroseconds, versusLibpq, goalMet, floorInRoundTrips
    }

    /// The stored fields, plus the ratio, the verdict and the round-trip share.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(workload, forKey: .workload)
        try container.encode(unit, forKey: .unit)
        try container.encode(dataStoreKit, forKey: .dataStoreKit)
        try container.encode(libpq, forKey: .libpq)
        try container.encode(results, forKey: .results)
        try container.encode(agree, forKey: .agree)
        try container.encodeIfPresent(goal, forKey: .goal)
        try container.encodeIfPresent(roundTripMicroseconds, forKey: .roundTripMicroseconds)
        try container.encodeIfPresent(libpqUnprepared, forKey: .libpqUnprepared)
        try container.encodeIfPresent(clientCPUMicroseconds, forKey: .clientCPUMicroseconds)
        try container.encode(versusLibpq, forKey: .versusLibpq)
        try container.encodeIfPresent(goalMet, forKey: .goalMet)
        try container.encodeIfPresent(floorInRoundTrips, forKey: .floorInRoundTrips)
    }
}
