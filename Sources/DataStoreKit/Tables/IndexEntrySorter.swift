import DataStoreCore

/// Gathers index entries in any order and gives them back in key order, in bounded memory: an
/// external merge sort. Entries collect in one run until it holds `memoryBound` bytes; the run is
/// then sorted and spilled to a file in `directory`, and at the end the runs are merged.
final class IndexEntrySorter {
    let memoryBound: Int
    let directory: String
    private var current = EntryRun()
    private var spilled: [SpilledRun] = []
    /// The most bytes a spilled run held in memory (arena and slots).
    private var largestSpilledBytes = 0
    /// The entries added.
    private(set) var entryCount = 0

    init(memoryBound: Int, directory: String) {
        self.memoryBound = max(memoryBound, 1)
        self.directory = directory
    }

    /// The most bytes one run has held in memory (arena and slots): what bounds the sort's memory.
    var largestRunBytes: Int { max(largestSpilledBytes, current.byteCount) }

    /// How much the merge reads of each spilled run at a time: a sixteenth of the bound (at least
    /// 4 KiB, at most 1 MiB), so that sixteen runs take no more memory than one.
    private var readBytes: Int { min(max(memoryBound / 16, 4_096), 1 << 20) }

    /// How many sorted runs went to files.
    var spilledRuns: Int { spilled.count }

    /// Adds an entry, spilling the run when it reaches the memory bound.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/storage`` when a run cannot be written.
    func add(key: [UInt8], value: UnsafeRawBufferPointer) throws(DataStoreError) {
        key.withUnsafeBytes { current.append(key: $0, value: value) }
        entryCount += 1
        if current.byteCount >= memoryBound { try spill() }
    }

    private func spill() throws(DataStoreError) {
        largestSpilledBytes = max(largestSpilledBytes, current.byteCount)
        current.sort()
        spilled.append(try SpilledRun(writing: current, in: directory, readBytes: readBytes))
        current = EntryRun()
    }

    /// Hands every entry to `emit` in key order, in batches of about `batchBytes`, each a run and
    /// the range of its entries to take.
    /// - Complexity: O(n log n) to sort the runs, then O(n log k) to merge k runs.
    func drain(batchBytes: Int, _ emit: (EntryRun, Range<Int>) async throws -> Void) async throws {
        current.sort()
        if spilled.isEmpty {
            var start = 0
            var bytes = 0
            for position in 0..<current.count {
                bytes += current.entryBytes(at: position)
                if bytes >= batchBytes {
                    try await emit(current, start..<(position + 1))
                    (start, bytes) = (position + 1, 0)
                }
            }
            if start < current.count { try await emit(current, start..<current.count) }
            current = EntryRun()
            return
        }
        try await merge(batchBytes: batchBytes, emit)
    }

    /// Merges the spilled runs and the one in memory.
    private func merge(batchBytes: Int, _ emit: (EntryRun, Range<Int>) async throws -> Void) async throws {
        var heads = RunHeads()
        for (source, run) in spilled.enumerated() {
            if let block = try run.nextBlock() { heads.insert(RunHeads.Head(run: block, position: 0, source: source)) }
        }
        if !current.isEmpty { heads.insert(RunHeads.Head(run: current, position: 0, source: -1)) }
        current = EntryRun()
        var batch = EntryRun()
        while let least = heads.least {
            least.run.withEntry(at: least.position) { batch.append(key: $0, value: $1) }
            if least.position + 1 < least.run.count {
                heads.advanceLeast()
            } else if least.source >= 0, let block = try spilled[least.source].nextBlock() {
                heads.replaceLeast(with: RunHeads.Head(run: block, position: 0, source: least.source))
            } else {
                heads.removeLeast()
            }
            if batch.byteCount >= batchBytes {
                try await emit(batch, 0..<batch.count)
                batch = EntryRun()
            }
        }
        if !batch.isEmpty { try await emit(batch, 0..<batch.count) }
        spilled = []
    }
}
