import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// Names a backend cannot keep exactly are refused alike on both, before anything is written.
@Suite(
    "Names: the same rules on LMDB and PostgreSQL",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct NameRulesTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
    static let badNames = ["", "a/b", "bad\u{0}x", "\u{0}", String(repeating: "n", count: StoreNames.maxBytes + 1)]

    /// Expects `body` to throw `.schemaMismatch` whose message says what the rule is.
    static func expectRefused(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what) was accepted")
        } catch let error as DataStoreError {
            #expect(error.code == .schemaMismatch, "\(what): \(error)")
            #expect(error.message.contains("NUL") || error.message.contains("at most"), "\(what): \(error)")
        } catch {
            Issue.record("\(what): \(error)")
        }
    }

    @Test("a collection name with NUL, /, nothing or too many bytes is refused, and no collection appears")
    func collectionNames() async throws {
        let lmdb = try DataStore.inMemory()
        defer { lmdb.close() }
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let prefix = PostgresTestServer.uniqueName("bad")
        _ = try await server.collection(prefix, mapping: Self.mapping)
        _ = try await lmdb.collection(prefix, mapping: Self.mapping)
        let lmdbBefore = try lmdb.collectionNames()
        for bad in Self.badNames.map({ $0.replacingOccurrences(of: "bad", with: prefix) }) {
            await Self.expectRefused("LMDB \(bad.debugDescription)") {
                _ = try await lmdb.collection(bad, mapping: Self.mapping)
            }
            await Self.expectRefused("PostgreSQL \(bad.debugDescription)") {
                _ = try await server.collection(bad, mapping: Self.mapping)
            }
        }
        // A NUL must not find the collection named by what comes before it.
        await Self.expectRefused("PostgreSQL lookup") { _ = try await server.documentCollection(prefix + "\u{0}x") }
        await Self.expectRefused("PostgreSQL check") { _ = try server.check(collections: [prefix + "\u{0}x"]) }
        #expect(try lmdb.collectionNames() == lmdbBefore)
        // Other tests declare collections on the same server meanwhile: only this test's prefix counts.
        #expect(try server.collectionNames().filter { $0.hasPrefix(prefix) } == [prefix])
    }

    @Test("an index name or id field with NUL is refused on both backends")
    func indexAndIDFieldNames() async throws {
        let lmdb = try DataStore.inMemory()
        defer { lmdb.close() }
        let server = try await PostgresTestServer.store()
        defer { server.close() }
        let name = PostgresTestServer.uniqueName("named")
        let badIndex = [IndexDefinition("by\u{0}a", fields: ["a"])]
        await Self.expectRefused("LMDB index") {
            _ = try await lmdb.collection(name, mapping: Self.mapping, indexes: badIndex)
        }
        await Self.expectRefused("PostgreSQL index") {
            _ = try await server.collection(name, mapping: Self.mapping, indexes: badIndex)
        }
        let badID = ObjectMapping<Document>(idField: "i\u{0}d", encode: { $0 }, decode: { $0 })
        await Self.expectRefused("LMDB id field") { _ = try await lmdb.collection(name, mapping: badID) }
        await Self.expectRefused("PostgreSQL id field") { _ = try await server.collection(name, mapping: badID) }
        #expect(try !server.collectionNames().contains(name))
        #expect(try lmdb.collectionNames().isEmpty)
    }
}
