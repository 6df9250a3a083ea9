import Dispatch
import Synchronization

/// The writer's queue and its wake-up, shared by its thread and its callers.
final class WriterQueue: Sendable {
    let state = Mutex(WriterState())
    let wake = DispatchSemaphore(value: 0)
}
