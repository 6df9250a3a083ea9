import Foundation

/// Runs `body`, which blocks (waiting on a child process), on a thread of its own, so no thread of
/// the tests' shared cooperative pool — two on a two-core machine — is held meanwhile.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``onOwnThread(_:)`` for a body that cannot throw.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
