/// The rules every store applies to the names an application gives its collections, indexes and
/// id fields, checked before anything is written: a name one backend could not keep exactly is
/// refused on all of them, so a schema that works on one works on every other.
///
/// LMDB names its databases with C strings and `_meta` keys of at most 511 bytes; PostgreSQL's
/// `text` cannot hold U+0000 and libpq passes parameters as C strings, so a NUL would cut the name
/// short and land the writes under another one.
package enum StoreNames {
    /// The longest name, in UTF-8 bytes: an index's database name and `_meta` keys, which join a
    /// collection's name and an index's, stay within LMDB's key limit.
    package static let maxBytes = 200

    /// Throws unless `name` is a valid collection name: 1 to ``maxBytes`` UTF-8 bytes, without `/`
    /// (a separator in the store's own keys) or NUL.
    /// - Throws: ``DataStoreError`` `.schemaMismatch` naming the name and the rule it breaks.
    package static func checkCollection(_ name: String) throws(DataStoreError) {
        try check(name, what: "collection name \(shown(name))")
    }

    /// Throws unless `name` is a valid name for an index of `collection` (the rules of
    /// ``checkCollection(_:)``).
    package static func checkIndex(_ name: String, collection: String) throws(DataStoreError) {
        try check(name, what: "index name \(shown(name)) on \(collection)")
    }

    /// Throws unless `field` can name a collection's id field: non-empty, without NUL.
    package static func checkIDField(_ field: String, collection: String) throws(DataStoreError) {
        if field.isEmpty || field.utf8.contains(0) {
            throw DataStoreError(
                .schemaMismatch, "id field \(shown(field)) of \(shown(collection)) must be non-empty and contain no NUL"
            )
        }
    }

    private static func check(_ name: String, what: String) throws(DataStoreError) {
        let utf8 = name.utf8
        if utf8.isEmpty || utf8.contains(UInt8(ascii: "/")) || utf8.contains(0) {
            throw DataStoreError(.schemaMismatch, "\(what) must be non-empty and contain no \"/\" and no NUL")
        }
        if utf8.count > maxBytes {
            throw DataStoreError(.schemaMismatch, "\(what) has \(utf8.count) UTF-8 bytes; at most \(maxBytes)")
        }
    }

    /// `name` quoted, with a NUL and other control characters shown as escapes, cut after 60 characters.
    private static func shown(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars.prefix(60) {
            text += scalar.value < 0x20 ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "\"" + text + (name.unicodeScalars.count > 60 ? "…" : "") + "\""
    }
}
