package import DataStoreCore

/// What a live observation (``QueryObservation``) needs of the collection it watches, whichever
/// store holds it: where the store's observers register, and a run of the query.
package protocol ObservedCollection<Object>: Sendable {
    associatedtype Object

    /// The collection's name, as commits name it.
    var name: String { get }
    /// Where the store's observers register; its change source says when the store has closed.
    var observations: ObservationCenter { get }
    /// One run of `query` over a fresh snapshot: the results, their record bytes in order (so
    /// that a refresh that finds the same ones yields nothing), and their ids when they are every
    /// match (no limit or offset), so that a later commit can be checked against them.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError``; `.closed` once the store has closed.
    func observedResults(of query: Query) async throws(DataStoreError) -> ObservedResults<Object>
    /// Whether commits that touched `touched` may have changed results whose ids were `previous`
    /// (async: a server's store looks the touched documents up over the network).
    func mayChange(_ previous: Set<Value>?, touched: TouchedIDs, _ query: Query) async -> Bool
}

/// One run of an observed query.
package struct ObservedResults<Object> {
    package var objects: [Object]
    /// Each result's record bytes, in the results' order.
    package var records: [[UInt8]]
    /// The results' ids when they are every match (`nil`: not kept).
    package var ids: Set<Value>?

    package init(objects: [Object], records: [[UInt8]], ids: Set<Value>?) {
        self.objects = objects
        self.records = records
        self.ids = ids
    }
}
