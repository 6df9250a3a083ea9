internal import CPostgres
import DataStoreCore

/// The check of what ``PostgresStore/open(url:options:)`` is given, before any connection is
/// tried: a malformed URL is the caller's mistake, never the server being unavailable.
enum PostgresURL {
    /// The schemes a PostgreSQL URL has.
    static let schemes = ["postgresql", "postgres"]

    /// Throws unless `url` is a `postgresql://` (or `postgres://`) URL or a `key=value`
    /// connection string that libpq can parse, with a numeric port; an empty string (the `PG*`
    /// variables) passes.
    ///
    /// The corresponding C function is `PQconninfoParse`.
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidURL` naming the URL (its password hidden)
    ///   and what is wrong with it.
    /// The connect bound `url` sets with libpq's `connect_timeout`, as libpq reads it (seconds; 0
    /// or less waits indefinitely; 1 counts as 2), or `.none` when it sets none.
    static func connectTimeout(in url: String) -> Duration?? {
        guard let options = PQconninfoParse(url, nil) else { return .none }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "connect_timeout", let value = option.pointee.val,
                let seconds = Int(String(cString: value))
            {
                return .some(seconds <= 0 ? nil : .seconds(max(seconds, 2)))
            }
            option += 1
        }
        return .none
    }

    static func validate(_ url: String) throws(DataStoreError) {
        let shown = Connection.withoutPassword(url)
        if let separator = url.range(of: "://") {
            let scheme = url[..<separator.lowerBound]
            let isScheme =
                scheme.first?.isLetter == true && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
            if isScheme && !schemes.contains(scheme.lowercased()) {
                throw DataStoreError(
                    .invalidURL, "\(shown) names the scheme \(scheme): a PostgreSQL store opens postgresql:// URLs")
            }
        }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &message) else {
            let reason = message.map { String(cString: $0).trimmingTrailingNewlines() } ?? "libpq cannot parse it"
            if let message { PQfreemem(message) }
            throw DataStoreError(.invalidURL, "the PostgreSQL URL \(shown) is malformed: \(reason)")
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "port", let value = option.pointee.val {
                let ports = String(cString: value).split(separator: ",", omittingEmptySubsequences: false)
                if let bad = ports.first(where: { !$0.isEmpty && (Int($0).map { !(1...65_535).contains($0) } ?? true) })
                {
                    throw DataStoreError(
                        .invalidURL, "the PostgreSQL URL \(shown) names the port \(bad), not a number 1-65535")
                }
            }
            option += 1
        }
    }
}

extension String {
    fileprivate func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last?.isNewline == true { text.removeLast() }
        return text
    }
}
