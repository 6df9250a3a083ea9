// The libFuzzer entry point, shared by every fuzz target; all of them are compiled into one
// binary (inside module DataStoreCore, see run.sh) and `FUZZ_TARGET` picks the one to run.
import Foundation

/// The target chosen by `FUZZ_TARGET` (record, key, query or page), read once.
nonisolated(unsafe) private var selectedTarget: ((UnsafeRawBufferPointer) -> Void)?
// nonisolated(unsafe): written once in LLVMFuzzerInitialize, before libFuzzer calls any input,
// on libFuzzer's single thread.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<CInt>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    switch ProcessInfo.processInfo.environment["FUZZ_TARGET"] {
    case "record": selectedTarget = recordFuzz
    case "key": selectedTarget = keyFuzz
    case "query": selectedTarget = queryFuzz
    case "page": selectedTarget = pageFuzz
    case let other: fatalError("FUZZ_TARGET must be record, key, query or page, not \(other ?? "unset")")
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    selectedTarget!(UnsafeRawBufferPointer(start: count == 0 ? nil : start, count: count))
    return 0
}

/// Stops the fuzzer with a message when an invariant fails (a crash libFuzzer records).
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant failed: \(message())") }
}
