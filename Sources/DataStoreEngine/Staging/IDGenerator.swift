import Foundation
import Synchronization

/// Makes the ids `add` gives objects that have none: unique in the process, and ordered by
/// creation time, so records added later sort later.
///
/// Format: 12 hex digits of milliseconds since 1970, 6 of a counter within the millisecond, 8 of
/// a per-process random number (26 characters), e.g. `018c5f3a2b4c000001a9f03c11`.
package enum IDGenerator {
    private struct State {
        var millisecond: UInt64 = 0
        var counter: UInt64 = 0
    }

    private static let state = Mutex(State())
    private static let processTag = UInt32.random(in: 0...UInt32.max)

    package static func next() -> String {
        let now = UInt64(Date().timeIntervalSince1970 * 1000)
        let (millisecond, counter) = state.withLock { state -> (UInt64, UInt64) in
            if now > state.millisecond {
                state.millisecond = now
                state.counter = 0
            } else {
                state.counter += 1
                if state.counter > 0xFF_FFFF { // more than 16M ids in one millisecond: borrow the next
                    state.millisecond += 1
                    state.counter = 0
                }
            }
            return (state.millisecond, state.counter)
        }
        return hex(millisecond, digits: 12) + hex(counter, digits: 6) + hex(UInt64(processTag), digits: 8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
