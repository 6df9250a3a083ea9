/// The items a query run collects, in a buffer grown by hand and moved into an array once.
///
/// The code that collects them is generic over the item type and unspecialized when the
/// caller's module cannot see it, where every `Array.append` looks up the array's generic
/// metadata; this buffer's operations inline to value-witness calls with none.
struct CollectedItems<Item>: ~Copyable {
    /// `nil` until the first item: a query that finds none allocates nothing.
    private var start: UnsafeMutablePointer<Item>?
    private var count = 0
    private var capacity: Int

    /// An empty buffer that makes room for `capacity` items (at least one) at the first append.
    @inline(__always)
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Appends `item`, doubling the room when it is full.
    @inline(__always)
    mutating func append(_ item: consuming Item) {
        guard let start, count < capacity else { return grow(appending: item) }
        (start + count).initialize(to: item)
        count += 1
    }

    /// Allocates the first room, or twice the room, and appends `item`.
    private mutating func grow(appending item: consuming Item) {
        if let start {
            let larger = UnsafeMutablePointer<Item>.allocate(capacity: 2 * capacity)
            larger.moveInitialize(from: start, count: count)
            start.deallocate()
            self.start = larger
            capacity *= 2
        } else {
            start = .allocate(capacity: capacity)
        }
        start.unsafelyUnwrapped.advanced(by: count).initialize(to: item)
        count += 1
    }

    /// The items in the order appended, moved (not copied) into an array.
    consuming func array() -> [Item] {
        let (start, count) = (self.start, self.count)
        discard self
        guard let start else { return [] }
        defer { start.deallocate() }
        return [Item](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let destination = buffer.baseAddress { destination.moveInitialize(from: start, count: count) }
            initialized = count
        }
    }

    deinit {
        guard let start else { return }
        start.deinitialize(count: count)
        start.deallocate()
    }
}
