/// How far a save is on its way to disk when it is acknowledged.
///
/// Every mode survives the process being killed: LMDB writes committed pages to the file, and the
/// operating system keeps them after the process dies. The modes differ in what a crash of the
/// whole machine (power loss, kernel panic) may take back.
public enum Durability: Sendable, Hashable {
    /// A save is acknowledged only once its commit — data and meta page — is on disk. Nothing
    /// acknowledged is ever lost. (The default.) Each batch is one LMDB durable commit: its data
    /// pages are synced, then its meta page is written and synced; the batch's callers are
    /// acknowledged after that.
    case durable
    /// Data pages are synced at each commit but the meta page is not (`MDB_NOMETASYNC`): a machine
    /// crash may undo the last commits before the crash; the store stays intact.
    case relaxed
    /// Nothing is synced at commit (`MDB_NOSYNC`); the operating system writes back when it
    /// chooses. A machine crash may undo any commit since the last write-back; on a file system
    /// that reorders writes the store could be damaged. For bulk loads and caches.
    case none
}
