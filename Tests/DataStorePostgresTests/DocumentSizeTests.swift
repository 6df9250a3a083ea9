import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// One bound on a document's size, the same on both backends: a document over
/// `maxDocumentBytes` is `.tooLarge` before anything is queued, through the model calls and
/// contexts alike, and nothing is written.
@Suite(
    "Document size: the same bound on LMDB and PostgreSQL",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct DocumentSizeTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })
    static let bound = 1 << 20

    static func expectTooLarge(_ what: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(what): a document over the bound was taken")
        } catch let error as DataStoreError {
            #expect(error.code == .tooLarge, "\(what): \(error)")
            #expect(error.message.contains("\(bound)") && error.message.contains("maxDocumentBytes"), "\(error)")
        } catch {
            Issue.record("\(what): \(error)")
        }
    }

    @Test("a document over the bound: .tooLarge from add, put, add(contentsOf:) and a context, nothing written")
    func overTheBound() async throws {
        var lmdbOptions = DataStore.Options()
        lmdbOptions.maxDocumentBytes = Self.bound
        let directory = TemporaryDirectory("size")
        defer { directory.remove() }
        let lmdb = try DataStore.open(path: directory.path, options: lmdbOptions)
        defer { lmdb.close() }
        var postgresOptions = PostgresStore.Options()
        postgresOptions.maxDocumentBytes = Self.bound
        let server = try await PostgresStore.open(url: "", options: postgresOptions)
        defer { server.close() }
        let onLMDB = try await lmdb.collection("sized", mapping: Self.mapping)
        let onPostgres = try await server.collection(PostgresTestServer.uniqueName("sized"), mapping: Self.mapping)
        let large: Document = ["id": "large", "text": .string(String(repeating: "x", count: Self.bound))]
        let fits: Document = ["id": "fits", "text": .string(String(repeating: "x", count: Self.bound - 100))]
        for (name, model) in [("LMDB", onLMDB as any ModelProtocol<Document>), ("PostgreSQL", onPostgres)] {
            await Self.expectTooLarge("\(name) add") { _ = try await model.add(object: large) }
            await Self.expectTooLarge("\(name) put") { _ = try await model.put(id: "large", object: large) }
            _ = try await model.add(object: fits)
            #expect(try await model.count(params: [:]) == 1, "\(name)")
        }
        await Self.expectTooLarge("LMDB add(contentsOf:)") { try await onLMDB.add(contentsOf: [["id": "a"], large]) }
        await Self.expectTooLarge("PostgreSQL add(contentsOf:)") {
            try await onPostgres.add(contentsOf: [["id": "a"], large])
        }
        let lmdbContext = lmdb.newContext()
        await Self.expectTooLarge("LMDB context") { _ = try lmdbContext.add(large, to: onLMDB) }
        let postgresContext = server.newContext()
        await Self.expectTooLarge("PostgreSQL context") { _ = try postgresContext.add(large, to: onPostgres) }
        #expect(try await onLMDB.count(params: [:]) == 1)
        #expect(try await onPostgres.count(params: [:]) == 1)
    }
}
