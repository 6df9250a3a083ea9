package import DataStoreCore

/// What a live observation (``QueryObservation``) needs of the collection it watches, whichever
/// store holds it: where the store's observers register, and a run of the query.
package protocol ObservedCollection<Object>: Sendable {
    associatedtype Object

    /// The collection's name, as commits name it.
    var name: String { get }
    /// Where the store's observers register; its change source says when the store has closed.
    var observations: ObservationCenter { get }
    /// One run of `query` over a fresh snapshot, with the results' ids when they are every match
    /// (no limit or offset), so that a later commit can be checked against them (`nil`: not kept).
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError``; `.closed` once the store has closed.
    func observedResults(of query: Query) async throws(DataStoreError) -> (objects: [Object], ids: Set<Value>?)
    /// Whether commits that touched `touched` may have changed results whose ids were `previous`
    /// (async: a server's store looks the touched documents up over the network).
    func mayChange(_ previous: Set<Value>?, touched: TouchedIDs, _ query: Query) async -> Bool
}
