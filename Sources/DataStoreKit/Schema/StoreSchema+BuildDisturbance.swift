extension StoreSchema {
    /// The `_meta` key a process writes, in the same transaction as its writes, while another
    /// process builds the index `index` of `collection` from a snapshot; its value is the token of
    /// that build's owner. Such writes maintain the index directly, which a build that appends its
    /// sorted entries cannot allow for, so the builder falls back to a build in chunks.
    static func disturbedBuildKey(_ collection: String, _ index: String) -> [UInt8] {
        Array("disturbed/\(collection)/\(index)".utf8)
    }
}
