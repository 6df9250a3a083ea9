// swift-tools-version:6.0
//
// DataStoreKit: an embedded document store for server-side Swift on Linux, built on LMDB.
// Module imports run one way, top to bottom (see docs/architecture.md):
//   CLMDB → LMDB → DataStoreCore → DataStoreKit → (datastore CLI, Benchmarks)
//   DataStoreCore → DataStoreREST (never LMDB)
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "DataStoreKit",
    products: [
        .library(name: "LMDB", targets: ["LMDB"]),
        .library(name: "DataStoreCore", targets: ["DataStoreCore"]),
        .library(name: "DataStoreKit", targets: ["DataStoreKit"]),
    ],
    targets: [
        // The one door to C. Debian's liblmdb-dev provides the header and lmdb.pc.
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(name: "LMDB", dependencies: ["CLMDB"], swiftSettings: strict),
        .target(name: "DataStoreCore", swiftSettings: strict),
        .target(name: "DataStoreKit", dependencies: ["LMDB", "DataStoreCore"], swiftSettings: strict),

        .executableTarget(name: "datastore-example", dependencies: ["LMDB"], swiftSettings: strict),

        .testTarget(name: "LMDBTests", dependencies: ["LMDB"], swiftSettings: strict),
        .testTarget(name: "DataStoreCoreTests", dependencies: ["DataStoreCore"], swiftSettings: strict),
        .testTarget(name: "DataStoreKitTests", dependencies: ["DataStoreKit"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
