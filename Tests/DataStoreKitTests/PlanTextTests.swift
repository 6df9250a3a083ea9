// Plan text shows long values cut, with their size, instead of printing them whole.
import DataStoreCore
import DataStoreKit
import Testing

@Suite("Plan text")
struct PlanTextTests {
    @Test("explain cuts a 2 KB value to 64 bytes and names its length, in the scan and in the filter")
    func longValuesAreCut() async throws {
        let temporary = try TemporaryStore()
        defer { temporary.remove() }
        let notes = try await temporary.store.collection(
            Note.self, idField: "id", indexes: [IndexDefinition("message")])
        let long = String(repeating: "é", count: 1_000)
        let plan = try notes.explain(params: ["message": .string(long)]).description
        #expect(plan.utf8.count < 400, "\(plan.utf8.count) bytes: \(plan)")
        #expect(
            plan.components(separatedBy: "(2000 bytes)").count == 3, "once in the scan, once in the filter: \(plan)")
        let range = try notes.explain(params: ["message >=": .string(long)]).description
        #expect(range.contains("…\" (2000 bytes)") && range.utf8.count < 400, "\(range)")
    }

    @Test("description(limit:) keeps short values whole and cuts long ones on a character boundary")
    func abbreviation() {
        #expect(Value.string("short").description(limit: 64) == "\"short\"")
        let cut = Value.string(String(repeating: "€", count: 100)).description(limit: 10)
        #expect(cut == "\"€€€…\" (300 bytes)")
        #expect(Value.bytes(Array(repeating: 0xAB, count: 100)).description(limit: 9) == "<abababab…> (100 bytes)")
        #expect(Value.array(Array(repeating: 1, count: 100)).description(limit: 7).hasSuffix("… (300 bytes of text)"))
    }
}
