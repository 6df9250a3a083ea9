import DataStoreCore
import DataStoreKit

import Foundation
import Testing
@testable import DataStorePostgres

/// The server the tests run against: the one the `PG*` variables name (`make test` starts a
/// throwaway cluster and sets them; see Tests/Postgres/with-cluster.sh).
enum PostgresTestServer {
    /// Whether a server is configured. Without one (plain `swift test`) every PostgreSQL test is
    /// reported as skipped, with this reason.
    static let isConfigured = ProcessInfo.processInfo.environment["PGHOST"] != nil
    static let skipReason: Comment = "no PostgreSQL server: PGHOST is not set (run `make test`, which starts one)"

    /// A store on the configured server.
    static func store(options: PostgresStore.Options = PostgresStore.Options()) async throws -> PostgresStore {
        try await PostgresStore.open(url: "", options: options)
    }

    /// One store shared by the suites whose tests run in parallel by the dozen (the conformance
    /// battery), so that they hold a handful of connections rather than one writer and a
    /// reader pool each. Never closed: it lives as long as the test process.
    static func sharedStore() async throws -> PostgresStore {
        try await shared.value
    }

    private static let shared = Task { try await store(options: PostgresStore.Options(readers: 8)) }

    /// Waits, at most 30 s, until `store`'s change feed horizon has passed `commit`: a write
    /// transaction running anywhere on the server (another test's, in parallel) holds it back
    /// until it ends, as docs/postgres.md says of the feed.
    static func awaitHorizon(_ store: PostgresStore, past commit: CommitID) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try store.statistics().lastCommit < commit.rawValue, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// A collection name no other test uses.
    static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(UUID().uuidString.prefix(8))"
    }
}

/// SQL for tests, on a connection of their own.
enum TestSQL {
    /// Runs `sql` and returns its first column as text.
    @discardableResult
    static func run(_ sql: String, _ parameters: [SQLParameter] = []) throws -> [String?] {
        let connection = try Connection("")
        let result = try connection.execute(sql, parameters)
        return (0..<result.rowCount).map { result.text($0, 0) }
    }

    /// The table holding `collection`, from `_meta`.
    static func table(of collection: String) throws -> String {
        try run("SELECT 'dsk_c' || tag FROM _meta WHERE collection = $1", [.text(collection)]).first.flatMap { $0 }
            ?? ""
    }
}
