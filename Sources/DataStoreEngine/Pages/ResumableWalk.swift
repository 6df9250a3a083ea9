package import DataStoreCore

/// Runs a ``QueryPlan`` a batch at a time: each batch returns at most a given number of matches
/// and the ``ScanPosition`` just after the last, and the next batch — over the same snapshot or a
/// later one — seeks to that position instead of walking the rows again. Each store lends it the
/// walk of a window over its own storage (an LMDB cursor, a server's statements), so that pages,
/// streams and cursors mean the same on every backend.
///
/// The order is the query's whenever it has a sort (ties by id ascending, as a query gives them),
/// else the scan's. A sort the plan does not serve from an index or the id order would need every
/// match in memory, so it is refused.
package struct ResumableWalk: Sendable {
    /// The plan, without the limit and offset the walker applies.
    package let plan: QueryPlan
    /// The conditions, prepared to be checked on record bytes.
    package let predicates: [RecordPredicate]
    /// The field holding each document's id.
    let idField: String

    /// Visits one candidate: its entry's key (the record's id key for a walk of the records), its
    /// record's id key and document bytes, and a way to read its version; returns whether to go on.
    package typealias Visit = (
        _ key: UnsafeRawBufferPointer, _ idKey: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer,
        _ version: () throws -> Int
    ) throws -> Bool
    /// Walks `window` of `index` (the records when `nil`) in the window's order, passing each
    /// candidate to `visit` until it returns `false`.
    package typealias WalkWindow = (_ window: IndexWindow, _ index: IndexDefinition?, _ visit: Visit) throws -> Void
    /// Turns a matching record's document bytes (and its version) into a result.
    package typealias Materialize<Item> = (_ body: UnsafeRawBufferPointer, _ version: Int) throws -> Item

    /// The walk of `planned` — the plan the query itself gets (a limit can change which index
    /// serves best) — run without its limit and offset.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidOption`` naming the sort when the plan sorts in memory.
    package init(_ planned: QueryPlan, idField: String) throws(DataStoreError) {
        var plan = planned
        plan.query.limit = nil
        plan.query.offset = 0
        plan.limitPushedDown = false
        if !plan.query.sort.isEmpty && !plan.sortFromScan {
            switch plan.access {
            case .primaryKey, .empty: break
            default:
                let keys = plan.query.sort.map(\.description).joined(separator: ", ")
                throw DataStoreError(
                    .invalidOption,
                    "query option \"sort\" (\(keys)) is not served by an index of \(plan.collection), so its results "
                        + "cannot be streamed or paged in bounded memory; declare an index whose fields after the "
                        + "equality conditions are the sort fields, or use query(params:options:)")
            }
        }
        self.plan = plan
        self.idField = idField
        predicates = RecordPredicate.ordered(plan.query.conditions)
    }

    /// Identifies the plan's order, for tokens: a position means something only on the same walk.
    package var signature: String {
        switch plan.access {
        case .empty: "empty"
        case .primaryKey: "ids"
        case .fullScan: "records"
        case .idRange(_, let backward): "records\(backward ? "-" : "+")"
        case .indexScan(let scan): "index \(scan.index.name) \(scan.index.fields)\(scan.backward ? "-" : "+")"
        }
    }

    /// A hash of what a page token's position depends on (FNV-1a, 64 bits): the collection, the
    /// conditions, the sort, and the walk the plan makes.
    package var fingerprint: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(plan.collection)\u{0}\(plan.query)\u{0}\(signature)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Checks a page's arguments: its size is `size` (at least 1), and it starts where its token says.
    /// - Throws: ``/DataStoreCore/DataStoreError/Code/invalidOption`` for a `limit` or an `offset`, or a size below 1.
    package static func checkPage(options: [String: Value]?, size: Int) throws(DataStoreError) {
        for option in ["limit", "offset"] where options?[option].map({ $0 != .null }) == true {
            throw DataStoreError(
                .invalidOption,
                "query option \"\(option)\" does not apply to a page: its size is size:, and it starts where "
                    + "the page token says")
        }
        guard size >= 1 else {
            throw DataStoreError(.invalidOption, "a page's size must be at least 1, not \(size)")
        }
    }

    /// At most `count` matches after `position` (from the start when `nil`), in order: `walk`
    /// reads the windows, `lookUp` answers a primary-key plan whole (its ids come from the query).
    /// - Complexity: O(log n) to resume, then O(candidates read); a sorted index scan also reads
    ///   again the rows of the run of equal sort keys it resumes in.
    package func batch<Item>(
        after position: ScanPosition?, count: Int, walk: WalkWindow, lookUp: () throws -> [Item],
        materialize: Materialize<Item>
    ) throws -> ScanBatch<Item> {
        let count = max(1, count)
        switch plan.access {
        case .empty:
            return ScanBatch(items: [], after: nil)
        case .primaryKey:
            guard case .rows(let done)? = position ?? .rows(count: 0) else { throw Self.misplaced() }
            let all = try lookUp()
            let items = Array(all.dropFirst(done).prefix(count))
            return ScanBatch(
                items: items, after: done + items.count < all.count ? .rows(count: done + items.count) : nil)
        case .fullScan:
            return try keyBatch(
                [IndexWindow(idRange: nil, backward: false)], index: nil, after: position, count, walk, materialize)
        case .idRange(let range, let backward):
            return try keyBatch(
                [IndexWindow(idRange: range, backward: backward)], index: nil, after: position, count, walk,
                materialize)
        case .indexScan(let scan):
            let budget = StorageKeys.componentBudget(fieldCount: scan.index.fields.count)
            if plan.query.sort.isEmpty {
                return try keyBatch(
                    IndexWindow.windows(for: scan, budget: budget), index: scan.index, after: position, count, walk,
                    materialize)
            }
            return try SortedRuns(walk: self, scan: scan, budget: budget).batch(
                after: position, count: count, walk: walk, materialize: materialize)
        }
    }

    /// The error for a position that does not belong to this walk (the fingerprint matched, so
    /// only a hand-made token can get here).
    package static func misplaced() -> DataStoreError {
        DataStoreError(.invalidPageToken, "the page token does not hold a position of this query's plan")
    }

    /// A batch of a walk in key order: the records (`index` nil) or the entries of an index, over
    /// one or more windows visited in turn.
    private func keyBatch<Item>(
        _ windows: [IndexWindow], index: IndexDefinition?, after position: ScanPosition?, _ count: Int,
        _ walk: WalkWindow, _ materialize: Materialize<Item>
    ) throws -> ScanBatch<Item> {
        var first = 0
        var resumeKey: [UInt8]?
        switch position {
        case nil: break
        case .key(let window, let key)? where window < windows.count:
            (first, resumeKey) = (window, key)
        default: throw Self.misplaced()
        }
        var items: [Item] = []
        var last: ScanPosition?
        let deduplicate = index.map { $0.multiValue || windows.count > 1 } ?? false
        for number in first..<windows.count {
            let window =
                number == first
                ? resumeKey.map { windows[number].resuming(after: $0) } ?? windows[number] : windows[number]
            // `walk` calls the closure only while it runs, and `materialize` only through it.
            try withoutActuallyEscaping(materialize) { materialize in
                try walk(window, index) { key, idKey, body, version in
                    if deduplicate, let index, try !isFirstVisit(key, number, windows, index, body, idKey) {
                        return true
                    }
                    guard try matches(body, idKey: idKey) else { return true }
                    items.append(try materialized(idKey, body, version, materialize))
                    last = .key(window: number, key: Array(key))
                    return items.count < count
                }
            }
            if items.count >= count { return ScanBatch(items: items, after: last) }
        }
        return ScanBatch(items: items, after: nil)
    }

    /// Whether the record `body` passes every condition.
    func matches(_ body: UnsafeRawBufferPointer, idKey: UnsafeRawBufferPointer) throws -> Bool {
        do { return try RecordPredicate.all(predicates, match: body) } catch { throw unreadable(idKey, error) }
    }

    /// A matching record turned into an item; a failure names the record.
    func materialized<Item>(
        _ idKey: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, _ version: () throws -> Int,
        _ materialize: Materialize<Item>
    ) throws -> Item {
        do {
            return try materialize(body, try version())
        } catch let error as DataStoreError {
            throw error
        } catch {
            throw unreadable(idKey, error)
        }
    }

    /// The error for the record under `idKey` that cannot be read, naming it.
    func unreadable(_ idKey: UnsafeRawBufferPointer, _ underlying: any Error) -> DataStoreError {
        let id =
            (try? KeyCodec.decode(Array(idKey)).first).flatMap { $0 }.map(String.init(describing:)) ?? "\(Array(idKey))"
        return DataStoreError(
            .codec, "the record \(id) in collection \(plan.collection) cannot be decoded", underlying: underlying)
    }

    /// Whether the entry `key` in window `number` is the first of its document's entries the
    /// walk meets, so that a document reached through several elements (a multi-value index) or
    /// several overlapping windows is returned once, with no memory of what was returned.
    private func isFirstVisit(
        _ key: UnsafeRawBufferPointer, _ number: Int, _ windows: [IndexWindow], _ index: IndexDefinition,
        _ body: UnsafeRawBufferPointer, _ idKey: UnsafeRawBufferPointer
    ) throws -> Bool {
        let keys: [[UInt8]] =
            index.multiValue
            ? try index.entries(forRecord: body, idKey: Array(idKey), collection: plan.collection).map(\.key)
            : [Array(key)]
        for (position, window) in windows.enumerated() {
            let inside = keys.filter(window.contains)
            let firstMet =
                window.backward
                ? inside.max { $0.lexicographicallyPrecedes($1) } : inside.min { $0.lexicographicallyPrecedes($1) }
            guard let firstMet else { continue }
            return position == number && firstMet.elementsEqual(key)
        }
        return false
    }
}
