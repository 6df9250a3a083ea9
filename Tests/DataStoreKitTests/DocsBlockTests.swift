import Foundation
import TestSupport
import Testing

// Every ```swift block of README.md and docs/*.md is in a test file of a target that compiles it:
// a block that stops compiling, or a block changed in the docs and not in its test, fails here.

@Suite("The Swift blocks of README.md and docs/*.md")
struct DocsBlockTests {
    /// The test files holding each document's Swift blocks, and how many blocks it has at least (so
    /// that an extraction that finds none cannot pass).
    static let holders: [String: (minimum: Int, files: [String])] = [
        "README.md": (
            3, ["Tests/DataStoreKitTests/ReadmeExampleTests.swift", "Tests/DataStoreKitTests/DocsBlockTests.swift"]
        ),
        "docs/changes.md": (2, ["Tests/DataStoreKitTests/DocsExampleTests.swift"]),
        "docs/migrations.md": (1, ["Tests/DataStoreKitTests/DocsExampleTests.swift"]),
        "docs/contention.md": (3, ["Tests/DataStoreKitTests/ContentionDocExampleTests.swift"]),
        "docs/queries.md": (12, ["Tests/DataStoreKitTests/QueriesDocExampleTests.swift"]),
        "docs/rest.md": (4, ["Tests/DataStoreRESTTests/RestDocsExampleTests.swift"]),
        "docs/postgres.md": (3, ["Tests/DataStorePostgresTests/PostgresDocsExampleTests.swift"])
    ]

    /// README.md's "Adding it to a package" block, verbatim: `manifestLoads` makes it a manifest.
    static let readmeManifest = """
        // Package.swift
        dependencies: [
            .package(path: "../DataStoreKit"),  // or the git URL of your copy
        ],
        targets: [
            .executableTarget(name: "MyServer", dependencies: [
                .product(name: "DataStoreKit", package: "DataStoreKit"),   // the LMDB store
                .product(name: "DataStoreREST", package: "DataStoreKit"),  // the same protocol over REST, if wanted
            ]),
        ]
        """

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("every Swift block of the document is in its test file", arguments: holders.keys.sorted())
    func blocksAreHere(_ document: String) throws {
        let holder = try #require(Self.holders[document])
        let source = try holder.files.map {
            Self.normalized(try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8))
        }.joined(separator: "\n")
        let blocks = Self.swiftBlocks(
            try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8))
        #expect(blocks.count >= holder.minimum)
        for block in blocks {
            for piece in Self.pieces(of: block, in: document) {
                let found = source.contains(Self.normalized(piece))
                #expect(found, "\(document): not in \(holder.files):\n\(piece)")
            }
        }
    }

    @Test("every document with Swift blocks has a test that holds them")
    func everyDocumentIsHeld() throws {
        let docs = Self.root.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
        var held = 0
        for name in names.sorted() {
            let text = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
            guard !Self.swiftBlocks(text).isEmpty else { continue }
            held += 1
            #expect(Self.holders["docs/\(name)"] != nil, "docs/\(name) has Swift blocks that no test holds")
        }
        #expect(held >= 5)
    }

    @Test("README.md's package fragment is a manifest SwiftPM loads, naming the package's products")
    func manifestLoads() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory() + "datastorekit-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = folder.appendingPathComponent("MyServer")
        let sources = package.appendingPathComponent("Sources/MyServer")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        // The fragment's `../DataStoreKit` is this package.
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("DataStoreKit"), withDestinationURL: Self.root)
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "MyServer",
            \(Self.readmeManifest)
            )

            """
        try manifest.write(to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "print(\"MyServer\")\n".write(
            to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

        // `show-dependencies` compiles the manifest and resolves the products it names, without building.
        let run = try await runProcess(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", package.path, "--scratch-path",
                folder.appendingPathComponent("scratch").path, "show-dependencies"
            ])
        #expect(run.status == 0, "swift package show-dependencies failed:\n\(run)")
        #expect(run.output.contains("datastorekit"), "\(run)")
    }

    /// `text` with every run of white space made one space, and none just inside brackets, so that
    /// neither indentation nor where swift-format breaks a line counts.
    static func normalized(_ text: String) -> String {
        var result = ReadmeUsageTests.squeezed(text)
        for (spaced, tight) in [("( ", "("), ("[ ", "["), (" )", ")"), (" ]", "]")] {
            result = result.replacingOccurrences(of: spaced, with: tight)
        }
        return result
    }

    /// The text of every ```swift block of a Markdown document.
    static func swiftBlocks(_ markdown: String) -> [String] {
        markdown.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// What of `block` must be found in the test file: README.md's blocks paragraph by paragraph,
    /// with the store's path as a variable (as `ReadmeUsageTests.readmeBlocksAreHere` checks them);
    /// another document's block whole, but for its `import` lines, which open the test file.
    static func pieces(of block: String, in document: String) -> [String] {
        if document == "README.md" {
            return block.replacingOccurrences(of: "path: \"/var/lib/myapp/store\"", with: "path: path")
                .components(separatedBy: "\n\n")
                .filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        }
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        let imports = lines.prefix { $0.hasPrefix("import ") || $0.isEmpty }
        return imports.filter { !$0.isEmpty }.map(String.init) + [
            lines.dropFirst(imports.count).joined(separator: "\n")
        ]
    }
}
