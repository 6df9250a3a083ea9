public import DataStoreCore
import DataStoreEngine

/// A query of one shape, parsed once, whose parameter values are bound on each run: for a query
/// an application runs often with different values, as a prepared statement is for SQL.
///
/// Get one from ``StoreCollection/prepareQuery(params:options:)``. A run skips what the seed's
/// dictionary costs on every call — parsing and sorting its keys, finding the plan chosen for the
/// shape in the collection's table — and answers exactly as `StoreCollection.query(params:options:)`
/// answers the same dictionary with the values written in: the same plan, re-checked for these
/// values, over a fresh snapshot. When the collection's indexes change, the next run plans afresh.
///
/// A prepared query is a value that can be shared between tasks.
public struct PreparedQuery<Object>: Sendable {
    /// The collection the query reads.
    public let collection: StoreCollection<Object>
    private let template: QueryTemplate
    private let choice = PinnedPlanChoice()
    private let binding: PreparedBinding
    private let point = PinnedPointQuery()

    init(collection: StoreCollection<Object>, template: QueryTemplate) {
        self.collection = collection
        self.template = template
        self.binding = PreparedBinding(template)
    }

    /// The parameter keys, each bound on every run, in UTF-8 byte order.
    public var parameters: [String] { template.parameterKeys }

    /// The objects matching the query with `values` bound, keyed as the parameters were declared.
    ///
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.invalidQuery` naming a key that is not a
    ///   parameter, a parameter without a value or one whose value is not of its kind; `.codec`
    ///   for a record that cannot be decoded.
    public func run(_ values: [String: Value] = [:]) async throws -> [Object] {
        try objects(values)
    }

    /// `run(_:)` without suspending: a synchronous read of one snapshot.
    ///
    /// - Throws: As the async form.
    public func run(_ values: [String: Value] = [:]) throws -> [Object] {
        try objects(values)
    }

    /// The query `values` make: what ``StoreCollection/query(_:)`` would run for them.
    ///
    /// - Throws: As `run(_:)` for the values.
    public func query(_ values: [String: Value] = [:]) throws -> Query {
        try template.bind(values)
    }

    /// How the store would answer the query with `values` bound, without running it.
    ///
    /// - Throws: As `run(_:)` for the values.
    public func explain(_ values: [String: Value] = [:]) throws -> QueryPlan {
        collection.storage.plan(try template.bind(values), pinned: choice)
    }

    /// The one run behind both forms of `run(_:)`: the shape's point form when it has one (and
    /// `values` bind to it), else the plan.
    private func objects(_ values: [String: Value]) throws -> [Object] {
        let storage = collection.storage
        // Another process's index change, as `plan` would see it: a reload moves the generation on.
        storage.schemaWatch?.refreshIfStale()
        // The generation before the plan's index list: a form compiled from a list that changed
        // meanwhile is dropped at the next run.
        let generation = storage.planCache.generation
        switch point.compiled(generation: generation) {
        case .point(let compiled):
            if let bound = binding.bind(values) { return try collection.objects(compiled, bound) }
        case .general:
            break
        case .unknown:
            let query = try template.bind(values)
            let plan = storage.plan(query, pinned: choice)
            // A bound query that dropped a repeated condition has no point form for these positions.
            let compiled =
                query.conditions.count == binding.conditionCount ? storage.pointQuery(query, plan: plan) : nil
            point.remember(compiled, generation: generation)
            return try collection.objects(planned: plan)
        }
        return try collection.objects(planned: storage.plan(try template.bind(values), pinned: choice))
    }
}
