internal import CLMDB

#if canImport(Glibc)
import Glibc
#endif

extension Environment {
    /// The structural problems of every tree in the snapshot a read transaction begun now sees —
    /// LMDB's catalog of named databases, its free-page list and each named database — found by
    /// reading the data file's pages, not through LMDB, which trusts them.
    /// A database with none is safe for LMDB to walk; one with any is not.
    ///
    /// The pages reachable from the snapshot stay as they are while its read transaction lives,
    /// whatever other writers do: the check reads a consistent tree of a store in use.
    ///
    /// - Throws: ``LMDBError`` when no read transaction can begin, or the file cannot be read.
    /// - Complexity: O(pages of the snapshot), each read once.
    public func verifyStructure() throws -> [StructureProblem] {
        // A writer that commits twice between the transaction's start and the read of its meta
        // page overwrites that page: begin again.
        for _ in 0..<16 {
            let found: [StructureProblem]? = try read { transaction in
                guard let meta = try metaPage(ofSnapshot: transaction.snapshotID) else { return nil }
                let file = try dataFile()
                var status = stat()
                guard fstat(file, &status) == 0 else {
                    throw LMDBError(LMDBError.Code(rawValue: errno), context: "reading the size of \(path)/data.mdb")
                }
                let filePages = Int(status.st_size) / pageSize
                var verifier = PageTreeVerifier(pageSize: pageSize, lastPage: meta.lastPage, filePages: filePages) {
                    [pageSize] number in
                    Self.read(page: number, size: pageSize, from: file)
                }
                return verifier.verify(free: meta.free, main: meta.main)
            }
            if let found { return found }
        }
        throw LMDBError(.invalid, context: "reading the meta page of a snapshot of \(path): writers kept replacing it")
    }

    /// The meta page of transaction `snapshot`, or `nil` when neither page holds it any more.
    private func metaPage(ofSnapshot snapshot: Int) throws(LMDBError) -> PageTreeVerifier.MetaPage? {
        let file = try dataFile()
        for number in 0..<2 {
            guard let page = Self.read(page: number, size: pageSize, from: file),
                let meta = PageTreeVerifier.MetaPage(page), meta.transactionID == snapshot
            else { continue }
            return meta
        }
        return nil
    }

    /// The data file's descriptor (the environment's own, for reads).
    private func dataFile() throws(LMDBError) -> Int32 {
        var descriptor: Int32 = -1
        let code = mdb_env_get_fd(handle, &descriptor)
        guard code == 0, descriptor >= 0 else { throw LMDBError(.init(rawValue: code), context: "reading \(path)") }
        return descriptor
    }

    /// Page `number` of `size` bytes, or `nil` when the file ends before it.
    private static func read(page number: Int, size: Int, from file: Int32) -> [UInt8]? {
        guard number >= 0, number <= Int.max / size - 1 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(file, buffer.baseAddress! + done, size - done, off_t(number * size + done))
            }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return nil }
            done += count
        }
        return bytes
    }
}
