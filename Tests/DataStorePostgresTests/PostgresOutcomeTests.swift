import DataStoreCore
import DataStoreKit
import Foundation
import ModelConformance
import Testing

@testable import DataStorePostgres

/// A commit whose answer is lost is learned from the server, never guessed: a change set that
/// committed is acknowledged (never reported as a conflict, which would have a caller apply it
/// twice), one that did not is a `.network` error saying nothing was written, and one the server
/// cannot be asked about is `.outcomeUnknown` saying how to find out.
@Suite(
    "PostgreSQL: outcomes of commits whose answer was lost",
    .enabled(if: PostgresTestServer.isConfigured, PostgresTestServer.skipReason))
struct PostgresOutcomeTests {
    static let mapping = ObjectMapping<Document>(idField: "id", encode: { $0 }, decode: { $0 })

    /// A store reaching the server through `proxy`, with short bounds, and a fresh collection
    /// holding a counter at 0.
    static func open(_ proxy: CommitDroppingProxy) async throws -> (PostgresStore, PostgresCollection<Document>) {
        var options = PostgresStore.Options(readers: 2)
        options.connectTimeout = .seconds(2)
        options.statementTimeout = .seconds(5)
        let store = try await PostgresStore.open(url: proxy.url, options: options)
        let collection = try await store.collection(PostgresTestServer.uniqueName("outcomes"), mapping: Self.mapping)
        _ = try await collection.add(object: ["id": "counter", "n": 0])
        return (store, collection)
    }

    /// A context that reads the counter and writes it one higher, with a message: a save whose
    /// conflict check would see its own write had it landed.
    static func unitOfWork(_ store: PostgresStore, _ collection: PostgresCollection<Document>, _ message: String)
        throws -> PostgresContext
    {
        let context = store.newContext()
        let counter = try context.get(id: "counter", from: collection)
        let n = counter["n"]?.intValue ?? -1
        _ = try context.put(id: "counter", object: ["id": "counter", "n": .int(n + 1)], in: collection)
        _ = try context.add(["id": .string(message)], to: collection)
        return context
    }

    @Test("the answer to a COMMIT lost after the server has it, 20 times: each save succeeds and is applied once")
    func committedAnswerLost() async throws {
        let proxy = try CommitDroppingProxy()
        let (store, collection) = try await Self.open(proxy)
        defer { store.close() }
        for round in 1...20 {
            let context = try Self.unitOfWork(store, collection, "m\(round)")
            proxy.arm(.dropAnswer)
            do {
                #expect(try await context.save() != nil)
            } catch {
                Issue.record("round \(round): a committed save failed: \(error)")
            }
            #expect(proxy.drops == round, "round \(round): the connection was not cut at its COMMIT")
            #expect(try await collection.get(id: "counter")["n"] == .int(Int64(round)), "round \(round)")
        }
        #expect(try await collection.count(params: [:]) == 21)
    }

    @Test("a COMMIT that never reached the server: .network saying nothing was written, then a retry lands once")
    func commitNeverSent() async throws {
        let proxy = try CommitDroppingProxy()
        let (store, collection) = try await Self.open(proxy)
        defer { store.close() }
        let context = try Self.unitOfWork(store, collection, "once")
        proxy.arm(.dropCommit)
        do {
            try await context.save()
            Issue.record("a save whose COMMIT was never sent succeeded")
        } catch let error as DataStoreError {
            #expect(error.code == .network, "\(error)")
            #expect(error.message.contains("nothing of it was written"), "\(error)")
        }
        #expect(try await collection.count(params: [:]) == 1)
        // The changes stay staged: saving again lands them, once.
        try await context.save()
        #expect(try await collection.get(id: "counter")["n"] == 1)
        #expect(try await collection.count(params: [:]) == 2)
    }

    @Test("a lost answer the server cannot be asked about: .outcomeUnknown naming the transaction, and it did land")
    func outcomeUnknown() async throws {
        let proxy = try CommitDroppingProxy()
        var options = PostgresStore.Options(readers: 2)
        options.connectTimeout = .seconds(1)
        options.statementTimeout = .seconds(3)
        let store = try await PostgresStore.open(url: proxy.url, options: options)
        defer { store.close() }
        let name = PostgresTestServer.uniqueName("unknown")
        let collection = try await store.collection(name, mapping: Self.mapping)
        proxy.arm(.dropAnswerAndRefuse)
        do {
            _ = try await collection.add(object: ["id": "maybe"])
            Issue.record("a save whose outcome could not be learned succeeded")
        } catch let error as DataStoreError {
            #expect(error.code == .outcomeUnknown, "\(error)")
            #expect(error.message.contains("pg_xact_status"), "\(error)")
        }
        proxy.refuse(false)
        let direct = try await PostgresTestServer.store()
        defer { direct.close() }
        #expect(try await direct.documentCollection(name).get(id: "maybe")["id"] == "maybe")
    }
}
