/// The text of a statement with its hash worked out once, so that a read made of a text built
/// once (a layout's candidate statements, its lookup by id) finds its prepared statement without
/// hashing the whole text again.
package struct SQLText: Hashable, Sendable {
    /// The SQL itself.
    package let text: String
    private let hashCode: Int

    /// `text`, hashed now.
    package init(_ text: String) {
        self.text = text
        hashCode = text.hashValue
    }

    package static func == (a: SQLText, b: SQLText) -> Bool {
        a.hashCode == b.hashCode && a.text == b.text
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }
}
