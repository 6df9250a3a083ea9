/// The callback for calls that answer a list, as in the seed: an error or the objects.
public typealias ModelArrayCallback<Object> = @Sendable (_ error: (any Error)?, _ objects: [Object]?) -> Void
/// The callback for calls that answer one object, as in the seed: an error or the object.
public typealias ModelObjectCallback<Object> = @Sendable (_ error: (any Error)?, _ object: Object?) -> Void
/// The callback for calls that answer a number (``ModelProtocol/remove(params:)``): an error or it.
public typealias ModelCountCallback = @Sendable (_ error: (any Error)?, _ count: Int?) -> Void

/// The seed's callback forms, so its calls work as written there apart from Swift 6 syntax:
///
/// ```swift
/// model.query(params: ["from_user_key": "1234567890"], options: [:]) { error, results in … }
/// ```
///
/// Each starts a task that makes the `async` call and then calls `callback` exactly once. An
/// object handed to `put` or `add` is `sending`: it moves to that task, so the caller must not
/// use it again.
extension ModelProtocol {
    /// Runs ``query(params:options:)`` and reports through `callback`.
    public func query(
        params: [String: Value]?, options: [String: Value]?, callback: @escaping ModelArrayCallback<Object>
    ) {
        Task { await Self.report(callback) { try await query(params: params, options: options) } }
    }

    /// Runs ``get(id:)`` and reports through `callback`.
    public func get(id: Value, callback: @escaping ModelObjectCallback<Object>) {
        Task { await Self.report(callback) { try await get(id: id) } }
    }

    /// Runs ``put(id:object:)`` and reports through `callback`.
    public func put(id: Value, object: sending Object, callback: @escaping ModelObjectCallback<Object>) {
        Task { await Self.report(callback) { try await put(id: id, object: object) } }
    }

    /// Runs ``add(object:)`` and reports through `callback`.
    public func add(object: sending Object, callback: @escaping ModelObjectCallback<Object>) {
        Task { await Self.report(callback) { try await add(object: object) } }
    }

    /// Runs ``remove(id:)`` and reports through `callback`.
    public func remove(id: Value, callback: @escaping ModelObjectCallback<Object>) {
        Task { await Self.report(callback) { try await remove(id: id) } }
    }

    /// Runs ``update(id:set:unset:)`` and reports through `callback`.
    public func update(
        id: Value, set: [String: Value], unset: [String] = [], callback: @escaping ModelObjectCallback<Object>
    ) {
        Task { await Self.report(callback) { try await update(id: id, set: set, unset: unset) } }
    }

    /// Runs ``remove(params:)`` and reports the count through `callback`.
    public func remove(params: [String: Value]?, callback: @escaping ModelCountCallback) {
        Task { await Self.report(callback) { try await remove(params: params) } }
    }

    /// Runs ``all()`` and reports through `callback`.
    public func all(callback: @escaping ModelArrayCallback<Object>) {
        Task { await Self.report(callback) { try await all() } }
    }

    private static func report<R>(
        _ callback: @escaping @Sendable ((any Error)?, R?) -> Void,
        _ call: () async throws -> R
    ) async {
        do { callback(nil, try await call()) } catch { callback(error, nil) }
    }
}
