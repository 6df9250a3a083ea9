import DataStoreCore
import DataStoreEngine

/// Collects, for ``DataStore/check()``, which records hold each value of one unique index, and
/// names the values held by more than one record.
///
/// Records are grouped by the components part of their index entries (the key without the id
/// suffix). An uncut key stands for one value, so two records in its group are a duplicate, as
/// `CollectionTable.checkUnique` decides on writes. A cut key can stand for several real values
/// (docs/encoding.md, Truncation), so its group is split by the records' real values first.
/// Entries with a missing field are not constrained.
struct DuplicateFinder {
    private struct Holder {
        var id: String
        /// The real values behind the entry: one list of field values, or for a multi-value index
        /// the elements whose component is the entry's.
        var values: [[Value?]]
    }

    let index: IndexTable
    private var groups: [[UInt8]: (cut: Bool, holders: [Holder])] = [:]

    init(index: IndexTable) { self.index = index }

    /// Notes the entries of the record `id` (shown as in messages), computed from `document`.
    mutating func add(_ entries: [IndexTable.Entry], of document: Document, id: String) {
        for entry in entries where !entry.hasMissingField {
            let components = Array(entry.key[..<entry.componentsCount])
            let holder = Holder(id: id, values: realValues(in: document, components: components))
            groups[components, default: (entry.isTruncated, [])].holders.append(holder)
        }
    }

    /// One problem for every value that more than one record holds, naming the value and the ids.
    func problems(collection: String) -> [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        let shared = groups.filter { $0.value.holders.count > 1 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for (_, (cut, holders)) in shared {
            var byValue: [[Value?]: [String]] = [:]
            var order: [[Value?]] = []
            for holder in holders {
                // An uncut key is one value: every holder counts under the first holder's values.
                for values in cut ? holder.values : [holders[0].values.first ?? []] {
                    if byValue[values] == nil { order.append(values) }
                    if byValue[values]?.last != holder.id { byValue[values, default: []].append(holder.id) }
                }
            }
            for values in order {
                guard let ids = byValue[values], ids.count > 1 else { continue }
                let shown = values.map { $0.map(String.init(describing:)) ?? "missing" }.joined(separator: ", ")
                problems.append(
                    IntegrityProblem(
                        collection: collection, index: index.name,
                        message:
                            "unique value (\(shown)) is held by \(ids.count) records: \(ids.joined(separator: ", "))"))
            }
        }
        return problems
    }

    /// The values of `document` that the entry with `components` stands for.
    private func realValues(in document: Document, components: [UInt8]) -> [[Value?]] {
        guard index.definition.multiValue else { return [index.values(in: document)] }
        let field = index.definition.fields[0]
        let elements: [Value] =
            switch document.value(atPath: field.name) {
            case .array(let elements)?: elements
            case let value?: [value]
            case nil: []
            }
        return elements.filter { element in
            var key: [UInt8] = []
            StorageKeys.appendComponent(element, descending: field.descending, budget: index.componentBudget, to: &key)
            return key == components
        }.map { [$0] }
    }
}
