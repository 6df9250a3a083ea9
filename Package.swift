// swift-tools-version:6.0
//
// DataStoreKit: an embedded document store for server-side Swift on Linux, built on LMDB.
// Module imports run one way, top to bottom (see docs/architecture.md):
//   CLMDB → LMDB ─────────────────────────┐
//   DataStoreCore → DataStoreEngine → DataStoreKit → (datastore CLI, Benchmarks)
//                                   ↘ DataStorePostgres ← CPostgres (never DataStoreKit or LMDB)
//   DataStoreCore → DataStoreREST (never LMDB)
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault")
]

let package = Package(
    name: "DataStoreKit",
    products: [
        .library(name: "LMDB", targets: ["LMDB"]),
        .library(name: "DataStoreCore", targets: ["DataStoreCore"]),
        .library(name: "DataStoreKit", targets: ["DataStoreKit"]),
        .library(name: "DataStoreREST", targets: ["DataStoreREST"]),
        .library(name: "DataStoreEngine", targets: ["DataStoreEngine"]),
        .library(name: "DataStorePostgres", targets: ["DataStorePostgres"]),
        // The command-line tool, for `swift run datastore` or a dependent package's plugins.
        .executable(name: "datastore", targets: ["datastore"])
    ],
    targets: [
        // The one door to C. Debian's liblmdb-dev provides the header and lmdb.pc.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // The pthread lock ThreadSanitizer builds use as every module's `Mutex` (TSan sees it).
        .target(name: "PthreadLocks", swiftSettings: strict),
        .target(name: "LMDB", dependencies: ["CLMDB", "PthreadLocks"], swiftSettings: strict),
        .target(name: "DataStoreCore", swiftSettings: strict),
        // What every store shares, whatever keeps its data: index definitions and their keys, the
        // planner, staging, the change feed's types and observation.
        .target(name: "DataStoreEngine", dependencies: ["DataStoreCore", "PthreadLocks"], swiftSettings: strict),
        .target(
            name: "DataStoreKit", dependencies: ["LMDB", "DataStoreCore", "DataStoreEngine", "PthreadLocks"],
            swiftSettings: strict),
        .target(name: "DataStoreREST", dependencies: ["DataStoreCore"], swiftSettings: strict),
        // The door to PostgreSQL. Debian's libpq-dev provides libpq-fe.h and libpq.pc.
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "DataStorePostgres", dependencies: ["CPostgres", "DataStoreCore", "DataStoreEngine", "PthreadLocks"],
            swiftSettings: strict),

        // The command-line tool over a store directory.
        .executableTarget(
            name: "datastore", dependencies: ["DataStoreKit", "DataStorePostgres"], swiftSettings: strict),

        // A chat service's storage layer, written once against the contract, run on both stores (make test).
        .executableTarget(
            name: "ChatExample", dependencies: ["DataStoreKit", "DataStorePostgres"], path: "Examples/ChatService",
            swiftSettings: strict),

        // Benchmarks: release-only executables (they refuse to run in debug builds).
        // What the benchmarks share: the least `Codable`'s own machinery costs (`FloorDecoder`).
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport", swiftSettings: strict),
        .executableTarget(
            name: "CodecBenchmark", dependencies: ["DataStoreCore", "BenchmarkSupport"],
            path: "Benchmarks/CodecBenchmark", swiftSettings: strict),
        // SQLite is linked only here, as a peer to measure against; libpq directly, as the PostgreSQL floor.
        .systemLibrary(
            name: "CSQLite", path: "Benchmarks/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["DataStoreKit", "DataStorePostgres", "CLMDB", "CSQLite", "CPostgres", "BenchmarkSupport"],
            path: "Benchmarks/StoreBenchmark", swiftSettings: strict),

        // The memory bound of lazy reads at full size (docs/queries.md, Reading lazily).
        .executableTarget(
            name: "StreamBenchmark", dependencies: ["DataStoreKit", "BenchmarkSupport"],
            path: "Benchmarks/StreamBenchmark",
            swiftSettings: strict),

        .testTarget(name: "LMDBTests", dependencies: ["LMDB", "PthreadLocks", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "DataStoreCoreTests", dependencies: ["DataStoreCore", "ModelConformance"], swiftSettings: strict),
        // The fixtures every test target shares: the seed's Message, a seeded generator, temporary directories.
        .target(
            name: "TestSupport", dependencies: ["DataStoreCore"], path: "Tests/TestSupport", swiftSettings: strict),
        // One battery of ModelProtocol checks, run against every implementation.
        .target(
            name: "ModelConformance", dependencies: ["DataStoreCore", "DataStoreEngine", "TestSupport"],
            path: "Tests/ModelConformance",
            swiftSettings: strict),
        .testTarget(
            name: "DataStoreKitTests",
            dependencies: ["DataStoreKit", "DataStoreEngine", "PthreadLocks", "ModelConformance"],
            swiftSettings: strict),
        // Reliability: a process the crash tests kill at random moments, and the tests themselves.
        .executableTarget(
            name: "DataStoreCrashHelper", dependencies: ["DataStoreKit", "DataStorePostgres", "TestSupport"],
            path: "Tests/CrashHelper",
            swiftSettings: strict),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "DataStoreKit", "DataStorePostgres", "DataStoreCrashHelper", "datastore", "PthreadLocks", "TestSupport"
            ],
            swiftSettings: strict),
        .testTarget(
            name: "datastoreTests",
            dependencies: ["datastore", "ChatExample", "DataStoreKit", "DataStorePostgres", "ModelConformance"],
            swiftSettings: strict),
        .testTarget(
            name: "DataStoreRESTTests", dependencies: ["DataStoreREST", "ModelConformance"],
            resources: [.copy("Server")], swiftSettings: strict),
        // Runs against the server the PG* variables name (make test starts a throwaway one).
        .testTarget(
            name: "DataStorePostgresTests",
            dependencies: ["DataStorePostgres", "DataStoreEngine", "DataStoreKit", "ModelConformance", "PthreadLocks"],
            swiftSettings: strict)
    ],
    swiftLanguageModes: [.v6]
)
