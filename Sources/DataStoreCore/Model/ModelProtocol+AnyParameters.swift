/// The seed's `[String: Any]` dictionaries, accepted as they are:
///
/// ```swift
/// let paramsDic: [String: Any]? = ["from_user_key": "1234567890", "created_ts >=": since]
/// model.query(params: paramsDic, options: nil) { error, results in … }
/// ```
///
/// Each dictionary is converted once, before anything runs (``Value/parameters(_:role:)``): values
/// of ``ValueConvertible`` types (`Date`, `UUID`, `URL`, `Decimal`, every integer width …) by their
/// own value, the rest as ``Document/init(dictionary:)`` converts a field. A dictionary literal of
/// plain literals still goes to the ``Value`` forms; these are chosen only when one is not.
extension ModelProtocol {
    /// ``query(params:options:)`` for `[String: Any]` dictionaries.
    /// - Throws: ``DataStoreError`` `.invalidQuery` (`.invalidOption` for options) naming the key
    ///   and the type of a value that cannot be a query value, and the errors of the query.
    @_disfavoredOverload
    public func query(params: [String: Any]?, options: [String: Any]?) async throws -> [Object] {
        try await query(
            params: Value.parameters(params, role: .conditions), options: Value.parameters(options, role: .options))
    }

    /// The seed's callback form for `[String: Any]` dictionaries; a value that cannot be a query
    /// value is reported through `callback` (nothing is run).
    @_disfavoredOverload
    public func query(params: [String: Any]?, options: [String: Any]?, callback: @escaping ModelArrayCallback<Object>) {
        let converted = Result { () throws(DataStoreError) in
            (try Value.parameters(params, role: .conditions), try Value.parameters(options, role: .options))
        }
        switch converted {
        case .success(let (params, options)): query(params: params, options: options, callback: callback)
        case .failure(let error): Task { callback(error, nil) }
        }
    }

    /// ``count(params:)`` for a `[String: Any]` dictionary.
    @_disfavoredOverload
    public func count(params: [String: Any]?) async throws -> Int {
        try await count(params: Value.parameters(params, role: .conditions))
    }

    /// ``remove(params:)`` for a `[String: Any]` dictionary.
    @_disfavoredOverload
    @discardableResult
    public func remove(params: [String: Any]?) async throws -> Int {
        try await remove(params: Value.parameters(params, role: .conditions))
    }
}
