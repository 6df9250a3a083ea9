import DataStoreCore
import DataStoreEngine

/// Where feed consumers' positions live on the server: `_feed_positions`, made by the first save.
enum FeedPositionTable {
    static let create = """
        CREATE TABLE IF NOT EXISTS _feed_positions (consumer text PRIMARY KEY, position bigint NOT NULL)
        """

    static let save = """
        INSERT INTO _feed_positions (consumer, position) VALUES ($1, $2)
        ON CONFLICT (consumer) DO UPDATE SET position = EXCLUDED.position
        """

    /// Saves `commit` as `consumer`'s position inside the transaction open on `connection`.
    static func save(_ commit: CommitID, of consumer: String, on connection: Connection) throws {
        let answered = try connection.pipeline([
            (create, []), (save, [.text(consumer), .int(Int64(commit.rawValue))])
        ])
        for outcome in answered {
            if case .failed(let error) = outcome { throw error }
        }
    }

    /// `consumer`'s position, or `nil`, read on `connection`.
    static func position(of consumer: String, on connection: Connection) throws -> CommitID? {
        let exists = try connection.execute("SELECT to_regclass('_feed_positions') IS NOT NULL")
        guard exists.bool(0, 0) == true else { return nil }
        let result = try connection.execute(
            "SELECT position FROM _feed_positions WHERE consumer = $1", [.text(consumer)])
        return result.rowCount == 1 ? result.int(0, 0).map { CommitID(rawValue: Int($0)) } : nil
    }
}
