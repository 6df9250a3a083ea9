/// The next entry of each run a merge reads from, kept as a binary min-heap on those entries'
/// keys, so that taking the least of k runs costs O(log k) comparisons rather than k.
struct RunHeads {
    /// A run's block being merged, where the merge is in it, and which spilled run it came from
    /// (`-1`: the run that stayed in memory).
    struct Head {
        var run: EntryRun
        var position: Int
        var source: Int
    }

    private var heap: [Head] = []

    /// The head whose entry has the least key, if any run is left.
    var least: Head? { heap.first }

    mutating func insert(_ head: Head) {
        heap.append(head)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Moves the least head on to its run's next entry.
    mutating func advanceLeast() {
        heap[0].position += 1
        siftDown()
    }

    /// Puts `head` (the next block of the least head's run) in the least head's place.
    mutating func replaceLeast(with head: Head) {
        heap[0] = head
        siftDown()
    }

    /// Drops the least head: its run is used up.
    mutating func removeLeast() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown()
    }

    private mutating func siftDown() {
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && precedes(right, left) ? right : left
            guard precedes(child, parent) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }

    /// Whether the entry at heap slot `a` sorts before the one at `b`; equal keys go by source,
    /// so the merge's order does not depend on the heap's shape.
    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let order = heap[a].run.compareKey(at: heap[a].position, with: heap[b].run, at: heap[b].position)
        return order != 0 ? order < 0 : heap[a].source < heap[b].source
    }
}
