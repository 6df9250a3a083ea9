#if TSAN_LOCKS
import DataStoreKit

/// In ThreadSanitizer builds this module's `Mutex` is a lock TSan sees (DataStoreKit's
/// `ThreadSanitizerMutex`); a declaration of the module shadows `Synchronization.Mutex`, so call
/// sites do not change.
typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>
#endif
