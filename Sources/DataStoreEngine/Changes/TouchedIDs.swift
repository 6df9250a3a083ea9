package import DataStoreCore

/// The ids of a collection that commits touched since an observer last looked: a bounded set, or
/// `many` once past ``limit`` (or when not known), when the observer simply refreshes.
package enum TouchedIDs: Sendable, Equatable {
    case ids(Set<Value>)
    case many

    /// The most ids kept: past it, checking them one by one would cost more than a refresh.
    static let limit = 64

    static let none = TouchedIDs.ids([])

    /// These ids and `more` (`nil`: unknown ones).
    func adding(_ more: [Value]?) -> TouchedIDs {
        guard case .ids(var ids) = self, let more else { return .many }
        ids.formUnion(more)
        return ids.count > Self.limit ? .many : .ids(ids)
    }
}
