/// The one protocol every model implements, local or remote: the DataStoreKit pod's
/// `ModelProtocol`, made `async throws`.
///
/// - `query(params:options:)` answers a parameter dictionary such as
///   `["from_user_key": "123", "created_ts >=": 1437108600]` (see docs/queries.md);
/// - `get(id:)` fetches one object, or throws ``DataStoreError/Code/notFound``;
/// - `put(id:object:)` replaces the object stored under `id`, or inserts it when absent;
/// - `add(object:)` inserts, throwing ``DataStoreError/Code/duplicateID`` when the id exists,
///   and generating a unique, time-ordered id when the object has none;
/// - `remove(id:)` deletes and returns the object, or throws ``DataStoreError/Code/notFound``;
/// - `all()` returns every object;
/// - `update(id:set:unset:)` changes some top-level fields of one object and keeps the others;
/// - `remove(params:)` removes every object matching the parameters and returns how many.
///
/// The seed's callback forms (`query(params:options:callback:)` and so on) are provided for
/// every model by an extension.
public protocol ModelProtocol<Object>: Sendable {
    /// The objects this model stores: an ``ObjectCoder`` class or a `Codable` type.
    associatedtype Object

    /// Objects matching every condition in `params`, shaped by `options` (`limit`, `offset`,
    /// `sort`).
    /// - Throws: ``DataStoreError`` `.invalidQuery` or `.invalidOption` naming the bad key.
    func query(params: [String: Value]?, options: [String: Value]?) async throws -> [Object]

    /// The object stored under `id`.
    /// - Throws: ``DataStoreError`` `.notFound` naming the id.
    func get(id: Value) async throws -> Object

    /// Stores `object` under `id`, replacing what was there (an upsert), and returns it as stored.
    func put(id: Value, object: Object) async throws -> Object

    /// Inserts `object` and returns it as stored (with its generated id when it had none).
    /// - Throws: ``DataStoreError`` `.duplicateID` when its id is already stored.
    func add(object: Object) async throws -> Object

    /// Deletes the object stored under `id` and returns it.
    /// - Throws: ``DataStoreError`` `.notFound` naming the id.
    func remove(id: Value) async throws -> Object

    /// Every stored object.
    func all() async throws -> [Object]

    /// The number of objects matching every condition in `params`. Models that can count
    /// without fetching (the LMDB store counts index entries) do; the default fetches the
    /// matches and counts them.
    /// - Throws: ``DataStoreError`` `.invalidQuery` naming the bad key.
    func count(params: [String: Value]?) async throws -> Int

    /// Applies `update` — fields set, removed, incremented, appended to or stripped of elements,
    /// each named by its path (``FieldUpdate``) — to the object stored under `id`, leaving its
    /// other fields as they are, and returns the object as stored.
    ///
    /// The stores apply it to the stored document atomically (two concurrent updates of different
    /// fields both land); `Restify` sends one `PATCH`. The default reads the object, changes its
    /// document and puts it back (not atomic), for models with an ``ObjectMapping``
    /// (``MappedModel``).
    /// - Throws: ``DataStoreError`` `.notFound` naming the id (an update never inserts);
    ///   `.invalidValue` naming the field for a change to the id field, an empty or malformed path,
    ///   a field changed twice or inside another, a path through a value that is not an object,
    ///   an increment of what is not a number or an append to what is not an array, and for a
    ///   result that is no longer an `Object`; `.uniqueViolation`.
    func update(id: Value, _ update: FieldUpdate) async throws -> Object

    /// Removes every object matching every condition in `params` and returns how many it removed
    /// (`nil` or `[:]` removes everything).
    ///
    /// The LMDB store removes them in one change set, all or none; `Restify` sends one
    /// `DELETE base?params`. The default queries the matches and removes them one by one (not
    /// atomic), for models with an ``ObjectMapping`` (``MappedModel``).
    /// - Throws: ``DataStoreError`` `.invalidQuery` naming the bad key.
    func remove(params: [String: Value]?) async throws -> Int
}

extension ModelProtocol {
    /// Fetches the objects matching `params` and counts them.
    public func count(params: [String: Value]?) async throws -> Int {
        try await query(params: params, options: nil).count
    }
}
