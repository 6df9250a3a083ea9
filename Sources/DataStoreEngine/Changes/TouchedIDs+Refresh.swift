package import DataStoreCore

extension TouchedIDs {
    /// The touched ids whose documents now decide whether results whose ids were `previous` may
    /// have changed, or `nil` when they may have whatever those documents are (the results' ids
    /// were not kept, the commits touched too many ids to name, or a result among them).
    package func deciding(against previous: Set<Value>?) -> Set<Value>? {
        guard let previous, case .ids(let ids) = self, ids.isDisjoint(with: previous) else { return nil }
        return ids
    }
}
