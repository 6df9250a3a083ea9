/// One index entry of a document: its key (field components, then the record key and its
/// length), and what the unique check and the re-check need to know about it.
package struct IndexEntry: Hashable, Sendable {
    /// The key: the components, then the record key and its length.
    package var key: [UInt8]
    /// The length of the components part (the key without the id suffix).
    package var componentsCount: Int
    /// Whether some component was cut to fit the key limit (the real value must be re-checked).
    package var isTruncated: Bool
    /// Whether some field was missing (unique indexes do not constrain such entries).
    package var hasMissingField: Bool
}
