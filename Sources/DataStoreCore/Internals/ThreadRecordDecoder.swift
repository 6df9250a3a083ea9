#if canImport(Glibc)
import Glibc
#endif

/// Each thread's top-level record decoder, reused from one record to the next by
/// ``RecordDecoder``: a query decodes many records of one type in a row, and making a decoder and
/// its keyed container for each costs more than reading a small record's fields.
///
/// Only the top level is reused: nested values get decoders of their own. A decode that starts
/// while the thread's decoder is busy (an `init(from:)` that decodes another record itself) gets a
/// fresh one.
enum ThreadRecordDecoder {
    /// The thread's decoder and whether a decode is using it.
    final class Slot {
        let decoder = SourceDecoder(reusable: ())
        @exclusivity(unchecked) var isInUse = false
    }

    /// The key of each thread's ``Slot``; a thread that ends releases its slot and breaks the
    /// cycle between its decoder and the containers that decoder keeps.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Slot>.fromOpaque(pointer).takeRetainedValue().decoder.forgetReusedContainers()
        }
        precondition(created == 0, "pthread_key_create failed (\(created))")
        return key
    }()

    /// The calling thread's slot, made on its first use.
    @inline(__always)
    static func slot() -> Slot {
        if let pointer = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(pointer).takeUnretainedValue() }
        let slot = Slot()
        // On failure the slot is simply not kept, and the next decode makes another.
        if pthread_setspecific(key, Unmanaged.passRetained(slot).toOpaque()) != 0 {
            Unmanaged.passUnretained(slot).release()
        }
        return slot
    }
}
