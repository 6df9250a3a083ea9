import DataStoreKit
import Foundation
import Testing

@Suite("In-memory stores")
struct InMemoryStoreTests {
    @Test("the files live in /dev/shm where it has room, and are deleted on close")
    func inSharedMemoryAndRemovedOnClose() async throws {
        let store = try DataStore.inMemory()
        var shm = statvfs()
        let shmUsable =
            access("/dev/shm", W_OK | X_OK) == 0 && statvfs("/dev/shm", &shm) == 0
            && UInt64(shm.f_bavail) * UInt64(shm.f_frsize) >= 64 << 20
        #expect(DataStore.memoryDirectory == (shmUsable ? "/dev/shm" : String(NSTemporaryDirectory().dropLast())))
        #expect(store.path.hasPrefix(DataStore.memoryDirectory + "/datastorekit-memory-"))
        let notes = try await store.collection(Note.self, idField: "id")
        _ = try await notes.add(object: note("n1"))
        #expect(FileManager.default.fileExists(atPath: store.path + "/data.mdb"))
        store.close()
        #expect(!FileManager.default.fileExists(atPath: store.path))
        // The open map still reads after the files are gone.
        #expect(try await notes.get(id: "n1").id == "n1")
    }
}
