import DataStoreCore

extension DocumentStore {
    /// Runs `body` in a new unit of work and saves it; when the save finds that records it read or
    /// wrote changed underneath (`.conflict`), runs `body` again in a fresh unit of work, after a
    /// random pause that doubles each time, up to `attempts` runs (docs/contention.md).
    ///
    /// `body` stages its changes through the unit of work it is given and must not save it; it
    /// may run several times, so it must do nothing else it cannot repeat. For a read-modify-write
    /// that must not fail however hot its records, ``write(_:)`` runs in the writer, where no
    /// conflict is possible.
    ///
    /// ```swift
    /// func post(_ text: String, from user: String, in store: some DocumentStore) async throws {
    ///     let users = try await store.documentCollection("users")
    ///     let messages = try await store.documentCollection("messages")
    ///     try await store.perform { unit in
    ///         _ = try unit.update(id: .string(user), set: ["last_seen": 1437108600], unset: [], in: users)
    ///         _ = try unit.add(["from": .string(user), "text": .string(text)], to: messages)
    ///     }
    /// }
    /// ```
    /// - Returns: What the run that saved returned, and the commit's identity (`nil` when nothing
    ///   was staged).
    /// - Throws: ``/DataStoreCore/DataStoreError`` `.conflict` when every run conflicted; what
    ///   `body` or the save threw otherwise (not retried).
    @discardableResult
    public func perform<R>(
        attempts: Int = 10, firstPause: Duration = .microseconds(200),
        _ body: (any UnitOfWork) async throws -> R
    ) async throws -> (result: R, commit: CommitID?) {
        precondition(attempts > 0, "perform needs at least one attempt")
        var pause = firstPause
        for attempt in 1...attempts {
            let unit = newContext(policy: .detect)
            let result = try await body(unit)
            do {
                return (result, try await unit.save())
            } catch let error as DataStoreError where error.code == .conflict && attempt < attempts {
                // Jittered, so the units that conflicted together do not meet again.
                try await Task.sleep(for: pause * Double.random(in: 0.5...1.5))
                pause = min(pause * 2, .milliseconds(100))
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }
}
