internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

// Why a database would write zeros into its own file: a commit that appends to the data file
// allocates blocks, and its `fdatasync` must then also write the file system's metadata (the
// allocation, the file's size; a journal commit on a journaling ext4 or XFS) besides the pages,
// which makes it much slower than the same pages written over existing blocks (`fallocate` does not
// help: its unwritten extents are converted, and their metadata written, on first write; the figures
// are in docs/concurrency.md). Writing the blocks ahead of LMDB's
// growth, once, turns its appends into overwrites. LMDB ignores everything after its last used
// page (`mdb_env_open` sizes the map from the meta page, and copies stop at the last page), so
// the zeros change no state.

extension WriteTransaction {
    /// The size of the environment's data file in bytes: LMDB's pages in use, plus whatever
    /// free or zero-filled space follows them.
    ///
    /// The corresponding C calls are `mdb_env_get_fd` and `fstat`.
    public func dataFileSize() throws(LMDBError) -> Int {
        let descriptor = try environment.dataFileDescriptor()
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw LMDBError(
                LMDBError.Code(rawValue: errno), context: "reading the size of \(environment.path)/data.mdb")
        }
        return Int(status.st_size)
    }

    /// Writes zero bytes after the end of the data file until it is `length` bytes long, so that
    /// the commits that later grow into that space write over existing blocks. The bytes become
    /// durable with the next sync (this transaction's commit, in a syncing environment).
    ///
    /// Only space after the file's end, as `fstat` reports it now, is written, and it is written
    /// while this transaction holds LMDB's writer lock. So every page LMDB has written lies before
    /// it: those of earlier commits, in this process or another, and those this transaction wrote
    /// early when its dirty pages ran out of room (`mdb_page_spill`). The rest of this
    /// transaction's pages are written when it commits, after the zeros. Nothing is written when
    /// the environment maps its file writable (`MDB_WRITEMAP` writes pages through the map before
    /// the commit, and sizes the file itself; another process opening the file so only makes it
    /// longer).
    ///
    /// - Parameter length: the size the file should have at least, in bytes.
    /// - Returns: the file's size afterwards.
    /// - Throws: ``LMDBError`` with the system's code (`.noSpace`, …) when a write fails; the zeros
    ///   written before the failure stay, which LMDB ignores as it does any space after its last
    ///   page. Past the process's file-size limit the write fails with `.fileTooLarge` only when
    ///   `SIGXFSZ` is ignored; otherwise that signal ends the process, as it would LMDB's own write.
    @discardableResult
    public func extendDataFile(to length: Int) throws(LMDBError) -> Int {
        precondition(!isNested, "the data file is extended by a top-level write transaction")
        precondition(
            pthread_equal(thread, pthread_self()) != 0,
            "LMDB write transaction used on a thread other than the one that began it")
        var flags: UInt32 = 0
        try check(mdb_env_get_flags(environment.handle, &flags), "reading the flags of \(environment.path)")
        var size = try dataFileSize()
        guard flags & UInt32(MDB_WRITEMAP) == 0, size < length else { return size }
        let descriptor = try environment.dataFileDescriptor()
        let chunk = min(length - size, 256 << 10)
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 4_096)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        while size < length {
            let written = pwrite(descriptor, zeros.baseAddress, min(chunk, length - size), off_t(size))
            if written < 0 {
                if errno == EINTR { continue }
                throw LMDBError(
                    LMDBError.Code(rawValue: errno),
                    context: "extending \(environment.path)/data.mdb "
                        + "from \(size) to \(length) bytes")
            }
            size += written
        }
        return size
    }
}

extension Environment {
    /// The descriptor LMDB writes the data file through.
    func dataFileDescriptor() throws(LMDBError) -> Int32 {
        var descriptor: Int32 = -1
        try check(mdb_env_get_fd(handle, &descriptor), "reading the file descriptor of \(path)")
        return descriptor
    }
}
