internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

// Checks around `mdb_env_open` for the faults LMDB turns into SIGBUS instead of an error: it
// maps both of its files, so a page the file does not back (truncated, or sparse on a full disk)
// kills the process at the first touch.
extension Environment {
    /// Bytes LMDB 0.9 gives `lock.mdb` for `maxReaders` slots: one 64-byte cache line per reader
    /// after a 192-byte header (`MDB_txninfo`, which holds the first slot), as `mdb_env_setup_locks`
    /// sizes it.
    static func lockFileSize(maxReaders: Int) -> Int { (maxReaders - 1) * 64 + 192 }

    /// Gives `lock.mdb` real blocks before LMDB maps and writes it. LMDB extends a new lock file
    /// with `ftruncate`, which allocates nothing, so on a full disk its first write through the
    /// map is a SIGBUS; allocated here, a full disk is `ENOSPC` before anything is mapped.
    ///
    /// A lock file already as large is left as it is (its holes, if any, are filled).
    static func allocateLockFile(directory: String, maxReaders: Int, mode: UInt32) throws(LMDBError) {
        let path = directory + "/lock.mdb"
        let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else {
            // A directory this process may read but not write is for LMDB to report.
            if errno == EACCES || errno == EROFS { return }
            throw LMDBError(LMDBError.Code(rawValue: errno), context: "creating \(path)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw LMDBError(LMDBError.Code(rawValue: errno), context: "reading the size of \(path)")
        }
        let size = max(Int(status.st_size), lockFileSize(maxReaders: maxReaders))
        // posix_fallocate returns the error number rather than setting errno.
        let result = posix_fallocate(descriptor, 0, off_t(size))
        guard result == 0 else {
            if result == EOPNOTSUPP || result == EINVAL { return }
            throw LMDBError(
                LMDBError.Code(rawValue: result),
                context: "allocating \(size) bytes for \(path) (LMDB's reader table)")
        }
    }

    /// Refuses a data file shorter than its meta page says: reading a page past the end of a
    /// mapped file is a SIGBUS, so a truncated `data.mdb` must not get as far as a read.
    ///
    /// The corresponding C calls are `mdb_env_info`, `mdb_env_stat`, `mdb_env_get_fd` and `fstat`.
    static func checkDataFileLength(_ handle: OpaquePointer, path: String) throws(LMDBError) {
        var info = MDB_envinfo()
        try check(mdb_env_info(handle, &info), "reading info of \(path)")
        var statistics = MDB_stat()
        try check(mdb_env_stat(handle, &statistics), "reading statistics of \(path)")
        var descriptor: Int32 = -1
        try check(mdb_env_get_fd(handle, &descriptor), "reading the file descriptor of \(path)")
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw LMDBError(LMDBError.Code(rawValue: errno), context: "reading the size of \(path)/data.mdb")
        }
        let (needed, overflow) = (info.me_last_pgno + 1).multipliedReportingOverflow(by: Int(statistics.ms_psize))
        guard !overflow, Int(status.st_size) >= needed else {
            throw LMDBError(
                .truncatedFile,
                context: "opening environment at \(path): data.mdb is \(status.st_size) "
                    + "bytes, but its meta page says its data reaches \(needed) bytes (page \(info.me_last_pgno) of "
                    + "\(statistics.ms_psize) bytes); the file was cut short")
        }
    }

    /// Refuses a data file whose newest meta page — the one `mdb_env_open` takes (magic and
    /// version right, highest transaction id) — holds values LMDB would follow out of the file:
    /// its page size, which places the second meta page, its last page, and its two database
    /// roots. LMDB checks only the magic and version, so such a page is a SIGBUS, not an error.
    /// A file with no valid meta page is left for LMDB to refuse (or to be made anew, when its
    /// creation was torn).
    ///
    /// The offsets are LMDB 0.9's (mdb.c): `MDB_meta` after the 16-byte page header, the page size
    /// in the free-page list's database record.
    static func checkMetaPage(directory: String) throws(LMDBError) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let descriptor = Glibc.open(directory + "/data.mdb", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var pages = [UInt8](repeating: 0, count: 2 * pageSize)
        let read = pages.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard read == 2 * pageSize else { return }
        var newest: (page: Int, transaction: UInt64)?
        for page in 0..<2 {
            let start = page * pageSize
            guard PageTreeVerifier.u32(pages, start + 16) == 0xBEEF_C0DE, PageTreeVerifier.u32(pages, start + 20) == 1
            else { continue }
            let transaction = PageTreeVerifier.u64(pages, start + 144)
            // LMDB reads the second meta page at the first one's page size: each must be right.
            let recorded = Int(PageTreeVerifier.u32(pages, start + 40))
            if recorded != pageSize {
                throw LMDBError(
                    .corrupted,
                    context: "opening environment at \(directory): meta page \(page) of data.mdb is damaged: it gives "
                        + "a page size of \(recorded) bytes, not \(pageSize)")
            }
            if newest.map({ transaction > $0.transaction }) ?? true { newest = (page, transaction) }
        }
        guard let (page, transaction) = newest else { return }
        let start = page * pageSize
        let lastPage = PageTreeVerifier.u64(pages, start + 136)
        let mapSize = PageTreeVerifier.u64(pages, start + 32)
        var damage: String?
        if lastPage >= UInt64(Int.max / pageSize) {
            damage = "it gives a last page of \(lastPage), beyond any file"
        } else if mapSize < (lastPage + 1) * UInt64(pageSize) || mapSize > 1 << 47 {
            // Above 128 TiB no map can be made on x86-64 or AArch64: LMDB would fail to map it.
            damage = "it gives a map size of \(mapSize) bytes, which cannot hold its \(lastPage + 1) pages"
        } else {
            for (name, offset) in [("free-page list", 40), ("catalog", 88)] {
                let root = PageTreeVerifier.u64(pages, start + offset + 40)
                if root != .max && (root < 2 || root > lastPage) {
                    damage = "the root of its \(name) is page \(root), outside pages 2-\(lastPage)"
                }
            }
        }
        if let damage {
            throw LMDBError(
                .corrupted,
                context: "opening environment at \(directory): the meta page of transaction \(transaction) "
                    + "(page \(page) of data.mdb) is damaged: \(damage)")
        }
    }

    /// What a first open found in the directory, so a failed one can remove what it made.
    struct CreationRecord {
        var directories: [String] = []
        var lockFileExisted = true
        var dataFileExisted = true

        init(directory: String, created: [String]) {
            directories = created
            lockFileExisted = access(directory + "/lock.mdb", F_OK) == 0
            dataFileExisted = access(directory + "/data.mdb", F_OK) == 0
        }

        /// Removes the files and directories this open created, when the disk refused them
        /// space. The data file is removed only while empty: a process that opened the
        /// environment meanwhile would have written its meta pages.
        func undo(in directory: String, after error: LMDBError) {
            guard error.code == .noSpace || error.code == LMDBError.Code(rawValue: EDQUOT) else { return }
            let data = directory + "/data.mdb"
            var status = stat()
            let dataIsEmpty = stat(data, &status) != 0 || status.st_size == 0
            guard dataIsEmpty else { return }
            if !dataFileExisted { unlink(data) }
            if !lockFileExisted { unlink(directory + "/lock.mdb") }
            for created in directories.reversed() { rmdir(created) }
        }
    }
}

extension Environment {
    /// Whether `data.mdb` in `directory` is a new environment whose creation a power cut tore:
    /// LMDB writes a new file's two meta pages with one unsynced write, and the first commit's
    /// data sync is what makes them durable, so a cut before it can leave one page (or both)
    /// unwritten and the file refused as `MDB_INVALID`. Such a file holds no commit: no meta page
    /// with a transaction id above 0, and any page that is not a meta page is all zeros (a file
    /// that is not LMDB's is left alone).
    ///
    /// The offsets are those of LMDB 0.9's page header (flags at byte 10, `P_META` = 0x08) and
    /// `MDB_meta` (magic 0xBEEFC0DE at byte 16, transaction id at byte 144).
    static func isTornCreation(directory: String) -> Bool {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let descriptor = Glibc.open(directory + "/data.mdb", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var pages = [UInt8](repeating: 0, count: 2 * pageSize)
        let read = pages.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard read > 0 else { return false }
        var validPages = 0
        for page in 0..<2 {
            let start = page * pageSize
            let header = pages[start..<(start + 152)]
            let flags = UInt16(header[start + 10]) | UInt16(header[start + 11]) << 8
            let magic = header[(start + 16)..<(start + 20)].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if flags & 0x08 != 0 && magic == 0xBEEF_C0DE {
                let txnid = header[(start + 144)..<(start + 152)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard txnid == 0 else { return false }
                validPages += 1
            } else if pages[start..<(start + pageSize)].contains(where: { $0 != 0 }) {
                return false
            }
        }
        return validPages < 2
    }
}
