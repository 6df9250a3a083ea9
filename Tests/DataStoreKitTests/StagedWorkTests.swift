import DataStoreCore
import Testing

@testable import DataStoreKit

/// The staging rules both stores' contexts share (`StagedWork`), on plain values: what folds,
/// what a child hands its parent, and when a save has nothing to do.
@Suite("Staged work")
struct StagedWorkTests {
    typealias Work = StagedWork<String, String>

    static func key(_ id: String, in collection: String = "notes") -> StagedKey {
        StagedKey(collection: collection, id: .string(id))
    }

    @Test("an insert then a remove stages nothing; a remove then an insert replaces")
    func folding() throws {
        var work = Work()
        try work.stage(.insert("a1"), for: Self.key("a"), table: "t")
        try work.stage(.remove, for: Self.key("a"), table: "t")
        #expect(work.changes.isEmpty && work.order.isEmpty)
        try work.stage(.remove, for: Self.key("b"), table: "t")
        try work.stage(.insert("b2"), for: Self.key("b"), table: "t")
        guard case .upsert("b2")? = work.changes[Self.key("b")] else {
            Issue.record("expected an upsert, found \(String(describing: work.changes[Self.key("b")]))")
            return
        }
        #expect(work.order == [Self.key("b")])
    }

    @Test("a child's changes fold over its parent's in the child's order, and the parent keeps its earliest versions")
    func absorbing() throws {
        var parent = Work()
        parent.remember(Self.key("a"), version: 3, table: "t")
        try parent.stage(.insert("p"), for: Self.key("x"), table: "t")
        var child = Work()
        child.remember(Self.key("a"), version: 9, table: "t")
        child.remember(Self.key("c"), version: nil, table: "u")
        child.remember(Self.key("d"), version: 1, table: "t-child")
        try child.stage(.remove, for: Self.key("x"), table: "t")
        try child.stage(.upsert("c1"), for: Self.key("c", in: "other"), table: "u")
        try parent.absorb { child }
        #expect(parent.versions[Self.key("a")] == .some(3))
        #expect(parent.versions[Self.key("c")] == .some(nil))
        #expect(parent.changes[Self.key("x")] == nil, "the child's remove cancels the parent's insert")
        #expect(parent.order == [Self.key("c", in: "other")])
        #expect(parent.table(for: "other") == "u")
        #expect(parent.table(for: "notes") == "t", "the parent keeps the table it had")
        #expect(parent.changes.keys.filter { $0.collection == "other" } == [Self.key("c", in: "other")])
    }

    @Test(
        "staging with the version just read remembers it once, and the table staged through last; a refused stage remembers nothing"
    )
    func stagingRemembersWhatWasRead() throws {
        var work = Work()
        try work.stage(.insert("a1"), for: Self.key("a"), table: "t", read: .some(nil))
        try work.stage(.upsert("a2"), for: Self.key("a"), table: "t2", read: .some(4))
        try work.stage(.upsert("b1"), for: Self.key("b"), table: "t2")
        #expect(work.versions[Self.key("a")] == .some(nil), "the first version read is kept")
        #expect(work.versions[Self.key("b")] == nil, "nothing was read for b")
        #expect(work.table(for: "notes") == "t2")
        #expect(work.tables.count == 1)
        _ = try work.beginSaving(policy: .detect)
        #expect(throws: DataStoreError.self) {
            try work.stage(.upsert("c1"), for: Self.key("c"), table: "t", read: .some(2))
        }
        #expect(work.versions[Self.key("c")] == nil)
    }

    @Test("while a save commits, staging, a child's save and a second save are named conflicts, and nothing moves")
    func busy() throws {
        var work = Work()
        try work.stage(.insert("a1"), for: Self.key("a"), table: "t")
        let taken = try #require(try work.beginSaving(policy: .detect))
        #expect(work.saving)
        let staging = #expect(throws: DataStoreError.self) { try work.stage(.remove, for: Self.key("b"), table: "t") }
        #expect(staging?.code == .conflict && staging?.message.contains(#"notes/"b""#) == true)
        var handedOver = false
        let merging = #expect(throws: DataStoreError.self) {
            try work.absorb {
                handedOver = true
                return Work()
            }
        }
        #expect(merging?.code == .conflict && !handedOver, "the child's work is not taken when the parent refuses it")
        #expect(throws: DataStoreError.self) { _ = try work.beginSaving(policy: .detect) }
        #expect(work.order == [Self.key("a")])
        work.clear(saved: taken)
        work.saving = false
        #expect(work.changes.isEmpty && work.order.isEmpty && work.versions.isEmpty)
    }

    @Test("a save has nothing to do without changes, unless it must check versions read")
    func nothingToSave() throws {
        var work = Work()
        #expect(try work.beginSaving(policy: .detect) == nil)
        work.remember(Self.key("a"), version: 1, table: "t")
        #expect(try work.beginSaving(policy: .lastWriterWins) == nil)
        #expect(!work.saving)
        let taken = try #require(try work.beginSaving(policy: .detect))
        #expect(taken.versions[Self.key("a")] == .some(1))
        // A version remembered while the save ran (a read) outlives the save.
        work.remember(Self.key("b"), version: 2, table: "t")
        work.clear(saved: taken)
        #expect(work.versions.keys.sorted { "\($0.id)" < "\($1.id)" } == [Self.key("b")])
    }

    @Test("a changed record is described with the version read and the version found")
    func describingConflicts() {
        let error = DataStoreError.changedUnderneath([
            Self.key("b").changeDescription(read: nil, now: 4), Self.key("a").changeDescription(read: 3, now: nil)
        ])
        #expect(error.code == .conflict)
        #expect(
            error.message
                == #"records changed since this context read them: notes/"a" (read version 3, now absent), "#
                + #"notes/"b" (read absent, now version 4)"#)
    }
}
