/// The keyed containers a reusable ``SourceDecoder`` keeps to hand out again, by key type: two, so
/// that a class and its superclass, each asking the same decoder for its own keys, both keep theirs.
struct ReusedContainers {
    private var first: (keyType: ObjectIdentifier, holder: AnyObject)?
    private var second: (keyType: ObjectIdentifier, holder: AnyObject)?

    /// The ``ReusedKeyedContainer`` kept for `keyType`, if any. Not generic: an optional of the
    /// caller's container type would cost the metadata lookup the cache saves.
    @inline(__always)
    func holder(for keyType: any CodingKey.Type) -> AnyObject? {
        let key = ObjectIdentifier(keyType)
        if let first, first.keyType == key { return first.holder }
        if let second, second.keyType == key { return second.holder }
        return nil
    }

    /// Keeps `container`, dropping the one used longest ago if two are kept.
    mutating func keep<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>) {
        second = first
        first = (ObjectIdentifier(Key.self), ReusedKeyedContainer(container))
    }

    /// Drops both: each refers back to its decoder.
    mutating func removeAll() {
        first = nil
        second = nil
    }
}

/// A keyed container a reusable ``SourceDecoder`` keeps: a class, so that it is kept without its
/// type's metadata and read back with `unsafeDowncast` once its key type has matched.
final class ReusedKeyedContainer<Key: CodingKey> {
    let container: KeyedDecodingContainer<Key>

    init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
}
