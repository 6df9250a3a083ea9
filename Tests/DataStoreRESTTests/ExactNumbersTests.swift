// Numbers cross the wire and come back bit for bit, through a real server (the test server keeps
// what it is sent as Python floats and ints and writes them back with their shortest repr).
import DataStoreCore
import DataStoreREST
import Foundation
import ModelConformance
import Testing

@Suite("Exact numbers over REST")
struct ExactNumbersTests {
    @Test("a million random doubles stored and fetched back are bit-identical; Int64's edges stay integers")
    func doublesAndIntegers() async throws {
        let model = Restify<Document>(
            path: try TestServer.running().freshCollection(), networkClient: Models.client,
            mapping: ObjectMapping(
                idField: "id", encode: { $0 }, decode: { $0 },
                decodeRecord: { try RecordCodec.decode($0) }))
        let doubles = NumberSamples.doubles(count: 1_000_000, seed: 0xBEEF_0002)
        let perDocument = 20_000
        for part in 0..<doubles.count / perDocument {
            let values = doubles[part * perDocument..<(part + 1) * perDocument].map(Value.double)
            _ = try await model.add(object: Document(["id": .int(Int64(part)), "x": .array(values)]))
        }
        _ = try await model.add(
            object: Document(["id": "edges", "x": .array(NumberSamples.integerEdges.map(Value.int))]))
        var comparison = NumberSamples.BitComparison()
        for part in 0..<doubles.count / perDocument {
            let fetched = try await model.get(id: .int(Int64(part)))
            let values = try #require(fetched["x"]?.arrayValue)
            comparison.compare(values, with: doubles[(part * perDocument)...])
        }
        #expect(comparison.identical == doubles.count)
        #expect(comparison.mismatches.isEmpty, "\(comparison.mismatches)")
        let edges = try await model.get(id: "edges")
        #expect(edges["x"] == .array(NumberSamples.integerEdges.map(Value.int)))
    }
}
