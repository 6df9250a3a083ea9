internal import CLMDB
#if canImport(Glibc)
import Glibc
#endif

/// An error reported by LMDB or by this layer, catchable by its ``Code``.
///
/// Errors are a struct around an extensible code (as in swift-nio), so new codes never break
/// callers that `switch` on the ones they know:
///
/// ```swift
/// do { try env.write { txn in try txn.put(value, for: key, in: db, options: .noOverwrite) } }
/// catch let error as LMDBError where error.code == .keyExists { … }
/// ```
public struct LMDBError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, by name. The raw value is LMDB's return code (or an `errno` value).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The memory map is full: grow it with ``Environment/setMapSize(_:waitingAtMost:)`` and retry.
        public static let mapFull = Code(rawValue: MDB_MAP_FULL)
        /// A put with `noOverwrite` (or `noDuplicateData`) found the key (or pair) present.
        public static let keyExists = Code(rawValue: MDB_KEYEXIST)
        /// The key or data item was not found. The Swift API returns `nil` instead wherever
        /// "absent" is a normal answer.
        public static let notFound = Code(rawValue: MDB_NOTFOUND)
        /// The write transaction has too many dirty pages: split the work.
        public static let transactionFull = Code(rawValue: MDB_TXN_FULL)
        /// Every reader slot is taken: raise `maxReaders` or end idle readers.
        public static let readersFull = Code(rawValue: MDB_READERS_FULL)
        /// Another process grew the map beyond this process's map size.
        public static let mapResized = Code(rawValue: MDB_MAP_RESIZED)
        /// A key (or a duplicate-sorted value) is empty or longer than the 511-byte limit.
        public static let badValueSize = Code(rawValue: MDB_BAD_VALSIZE)
        /// The file is not an LMDB environment, or it is corrupted.
        public static let invalid = Code(rawValue: MDB_INVALID)
        /// A page of the file is damaged (found before LMDB would follow it, or by LMDB).
        public static let corrupted = Code(rawValue: MDB_CORRUPTED)
        /// A fatal error earlier left the environment unusable: reopen it (`MDB_PANIC`).
        public static let panic = Code(rawValue: MDB_PANIC)
        /// The environment was written by an incompatible version of LMDB.
        public static let versionMismatch = Code(rawValue: MDB_VERSION_MISMATCH)
        /// The database flags differ from those the database was created with.
        public static let incompatible = Code(rawValue: MDB_INCOMPATIBLE)
        /// The environment has reached its `maxDatabases` limit of named databases.
        public static let databasesFull = Code(rawValue: MDB_DBS_FULL)
        /// The device has no space left (`ENOSPC`).
        public static let noSpace = Code(rawValue: ENOSPC)
        /// The file would exceed the process's file-size limit (`EFBIG`).
        public static let fileTooLarge = Code(rawValue: EFBIG)
        /// Permission denied (`EACCES`), including writes to a read-only environment.
        public static let permissionDenied = Code(rawValue: EACCES)
        /// No such file or directory (`ENOENT`).
        public static let noSuchFile = Code(rawValue: ENOENT)
        /// The file system is read-only (`EROFS`).
        public static let readOnlyFileSystem = Code(rawValue: EROFS)
        /// An argument LMDB refused (`EINVAL`).
        public static let invalidArgument = Code(rawValue: EINVAL)
        /// Input/output error (`EIO`).
        public static let ioError = Code(rawValue: EIO)
        /// The path is already open in this process with a different configuration.
        /// (Not an LMDB code: LMDB forbids opening one environment twice in a process.)
        public static let alreadyOpen = Code(rawValue: -31_000)
        /// The data file is shorter than its meta page says: it was truncated or copied in part.
        /// (Not an LMDB code: LMDB would fault with SIGBUS at the first read past the end.)
        public static let truncatedFile = Code(rawValue: -31_001)
        /// The map could not be resized because read transactions of this process stayed live
        /// (see ``Environment/setMapSize(_:waitingAtMost:)``). (Not an LMDB code.)
        public static let mapResizeBlocked = Code(rawValue: -31_002)

        public var description: String {
            switch self {
            case .mapFull: "mapFull"
            case .keyExists: "keyExists"
            case .notFound: "notFound"
            case .transactionFull: "transactionFull"
            case .readersFull: "readersFull"
            case .mapResized: "mapResized"
            case .badValueSize: "badValueSize"
            case .invalid: "invalid"
            case .versionMismatch: "versionMismatch"
            case .incompatible: "incompatible"
            case .databasesFull: "databasesFull"
            case .noSpace: "noSpace"
            case .fileTooLarge: "fileTooLarge"
            case .permissionDenied: "permissionDenied"
            case .noSuchFile: "noSuchFile"
            case .readOnlyFileSystem: "readOnlyFileSystem"
            case .invalidArgument: "invalidArgument"
            case .ioError: "ioError"
            case .alreadyOpen: "alreadyOpen"
            case .truncatedFile: "truncatedFile"
            case .mapResizeBlocked: "mapResizeBlocked"
            default: "code \(rawValue)"
            }
        }
    }

    /// The named code.
    public let code: Code
    /// What was being done, naming the path, database or key size involved.
    public let context: String
    /// LMDB's own text for the code (`mdb_strerror`), or ours for codes LMDB does not know.
    public let reason: String

    /// Creates an error for `code` while doing `context`.
    public init(_ code: Code, context: String) {
        self.code = code
        self.context = context
        if code == .alreadyOpen {
            self.reason = "environment already open in this process with another configuration"
        } else if code == .truncatedFile {
            self.reason = "data file shorter than its meta page says"
        } else if code == .mapResizeBlocked {
            self.reason = "read transactions of this process are still live"
        } else {
            self.reason = String(cString: mdb_strerror(code.rawValue))
        }
    }

    public var description: String { "LMDBError.\(code) (\(code.rawValue)): \(context): \(reason)" }
}

/// The one door every `mdb_*` return code passes through.
///
/// Codes the world can cause (map full, key exists, no space, …) are thrown; `MDB_NOTFOUND` is
/// handled by callers before they get here wherever absence is a normal answer.
@inline(__always)
func check(_ returnCode: Int32, _ context: @autoclosure () -> String) throws(LMDBError) {
    if returnCode != MDB_SUCCESS {
        throw LMDBError(LMDBError.Code(rawValue: returnCode), context: context())
    }
}
