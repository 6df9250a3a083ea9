import TestSupport
import Testing
import LMDB

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's LMDB example runs as written")
    func readmeExample() throws {
        let directory = TemporaryDirectory("readme")
        defer { directory.remove() }

        // From README.md, with the path replaced by a temporary directory.
        let environment = try Environment.open(path: directory.path)
        let messages = try environment.openDatabase(named: "messages", options: .create)

        try environment.write { transaction in
            try transaction.put(Array("hello".utf8), forKey: Array("message-1".utf8), in: messages)
        }

        let stored = try environment.read { transaction in
            try transaction.value(forKey: Array("message-1".utf8), in: messages)
        }
        #expect(stored == Array("hello".utf8))
    }
}
