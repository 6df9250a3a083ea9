/// The items a query run collects, in a buffer grown by hand and moved into an array once.
///
/// The code that collects them is generic over the item type and unspecialized when the
/// caller's module cannot see it, where every `Array.append` looks up the array's generic
/// metadata; this buffer's operations inline to value-witness calls with none.
struct CollectedItems<Item>: ~Copyable {
    private var start: UnsafeMutablePointer<Item>
    private var count = 0
    private var capacity: Int

    /// An empty buffer with room for `capacity` items (at least one).
    @inline(__always)
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        start = .allocate(capacity: self.capacity)
    }

    /// Appends `item`, doubling the room when it is full.
    @inline(__always)
    mutating func append(_ item: consuming Item) {
        if count == capacity { grow() }
        (start + count).initialize(to: item)
        count += 1
    }

    @inline(__always)
    private mutating func grow() {
        let larger = UnsafeMutablePointer<Item>.allocate(capacity: 2 * capacity)
        larger.moveInitialize(from: start, count: count)
        start.deallocate()
        start = larger
        capacity *= 2
    }

    /// The items in the order appended, moved (not copied) into an array.
    consuming func array() -> [Item] {
        let (start, count) = (self.start, self.count)
        discard self
        defer { start.deallocate() }
        return [Item](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let destination = buffer.baseAddress { destination.moveInitialize(from: start, count: count) }
            initialized = count
        }
    }

    deinit {
        start.deinitialize(count: count)
        start.deallocate()
    }
}
