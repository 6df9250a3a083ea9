package import DataStoreCore

/// The dictionary shapes a collection has met, each with what it compiled to in the store
/// (`Compiled`: LMDB's ``PointQuery``, or another store's form; `nil` for the general path), by
/// ``DictionaryDigest``. Forgotten all at once past a capacity: queries built from user input
/// could otherwise grow it without bound.
package struct ShapeTable<Compiled: Sendable>: Sendable {
    /// The shapes, found without generic code: a store in another module looks one up without
    /// asking the runtime for this type's metadata.
    package private(set) var shapes = ShapeIndex()
    /// What each shape compiled to, by its ``ShapeIndex`` slot.
    package private(set) var compiled: [Compiled?] = []

    package init() {}

    /// Keeps `shape` with `compiled` under `digest` (one copy when two readers compiled it at
    /// once), first forgetting every shape once `capacity` are kept.
    package mutating func insert(_ shape: DictionaryShape, _ compiled: Compiled?, digest: Int, capacity: Int) {
        guard !shapes.contains(shape, digest: digest) else { return }
        if shapes.count >= capacity { removeAll() }
        shapes.insert(shape, digest: digest)
        self.compiled.append(compiled)
    }

    /// How many of the shapes kept compiled (for tests).
    package var compiledCount: Int { compiled.filter { $0 != nil }.count }

    /// Forgets every shape.
    package mutating func removeAll() {
        shapes.removeAll()
        compiled.removeAll()
    }
}

/// Dictionary shapes by ``DictionaryDigest``, each with a slot numbered in the order kept: spread
/// over ``bucketCount`` short lists chosen by the digest's low bits, so that a lookup hashes nothing.
package struct ShapeIndex: Sendable {
    /// How many lists the shapes are spread over (a power of two).
    static let bucketCount = 64

    private var buckets: [[(digest: Int, shape: DictionaryShape, slot: Int)]] = Array(
        repeating: [], count: bucketCount)
    /// How many shapes are kept; each one's slot is the count when it was kept.
    package private(set) var count = 0

    /// The slot of the shape of `params` (with a `limit` option when `limited`), whose keys have
    /// `digest`, with the values bound to `values` in its condition order; `nil` when no shape
    /// with these keys is known.
    package func slot(digest: Int, _ params: [String: Value], limited: Bool = false, values: inout PointValues) -> Int?
    {
        buckets[digest & (Self.bucketCount - 1)].first {
            $0.digest == digest && $0.shape.bind(params, limited: limited, to: &values)
        }?
        .slot
    }

    /// Whether a shape with `shape`'s keys is kept under `digest`.
    func contains(_ shape: DictionaryShape, digest: Int) -> Bool {
        buckets[digest & (Self.bucketCount - 1)].contains {
            $0.shape.keys == shape.keys && $0.shape.limited == shape.limited
        }
    }

    /// Keeps `shape` under `digest` in the next slot.
    mutating func insert(_ shape: DictionaryShape, digest: Int) {
        buckets[digest & (Self.bucketCount - 1)].append((digest, shape, count))
        count += 1
    }

    /// Forgets every shape.
    mutating func removeAll() {
        for bucket in buckets.indices { buckets[bucket].removeAll() }
        count = 0
    }
}
