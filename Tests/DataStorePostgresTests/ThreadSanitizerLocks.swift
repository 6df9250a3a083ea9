#if TSAN_LOCKS
import PthreadLocks

/// In ThreadSanitizer builds this module's `Mutex` is a lock TSan sees (see `PthreadMutex`);
/// a declaration of the module shadows `Synchronization.Mutex`, so call sites do not change.
typealias Mutex<Value: ~Copyable> = PthreadMutex<Value>
#endif
