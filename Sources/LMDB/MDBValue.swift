internal import CLMDB

/// Lends `bytes` to LMDB as an `MDB_val`. LMDB only reads input keys and values, so handing it a
/// mutable pointer to immutable bytes is sound.
@inline(__always)
func withValue<R>(
    _ bytes: UnsafeRawBufferPointer,
    _ body: (inout MDB_val) throws -> R
) rethrows -> R {
    var value = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    return try body(&value)
}

extension MDB_val {
    /// The bytes LMDB lent, valid until the next update or the end of the transaction.
    @inline(__always)
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: mv_data, count: mv_size) }
}

/// Throws `.badValueSize` for a key LMDB would refuse (empty, or longer than the environment's
/// `maxKeySize`), naming its size and the database, so nothing is attempted (and nothing
/// written) with it.
///
/// It takes the size limit, not the environment: transactions and cursors keep the limit so that
/// a lookup never touches (retains) the environment object.
@inline(__always)
func validateKey(_ count: Int, _ database: Database, maxKeySize: Int) throws(LMDBError) {
    if count == 0 || count > maxKeySize {
        throw LMDBError(
            .badValueSize,
            context: "key of \(count) bytes for database "
                + "\(database.name ?? "(main)") (keys must be 1...\(maxKeySize) bytes)")
    }
}
