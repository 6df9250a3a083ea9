// A first run of DataStoreKit's foundation: opens a store directory, writes a few records in
// one durable transaction, and reads them back through a cursor. `make run` runs this until the
// side-by-side benchmark takes its place.
import Foundation
import LMDB

let path = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "datastorekit-example"
print("Opening store directory \(path)")
let environment = try Environment.open(path: path)
let messages = try environment.openDatabase(named: "messages", options: .create)

let started = Date()
try environment.write { transaction in
    for index in 0..<1_000 {
        let key = Array(String(format: "message-%04d", index).utf8)
        let value = Array("hello number \(index)".utf8)
        try transaction.put(value, forKey: key, in: messages)
    }
}
print("Wrote 1000 records in one durable commit in \(String(format: "%.1f", Date().timeIntervalSince(started) * 1000)) ms")

let (count, first, last) = try environment.read { transaction in
    try transaction.withCursor(on: messages) { cursor in
        (try transaction.count(of: messages), try cursor.move(.first), try cursor.move(.last))
    }
}
print("Read back \(count) records: first \(String(decoding: first?.key ?? [], as: UTF8.self)), "
    + "last \(String(decoding: last?.key ?? [], as: UTF8.self))")
let info = try environment.info()
print("Map size \(info.mapSize / 1_048_576) MiB, \(try environment.bytesInUse() / 1024) KiB in use, "
    + "last transaction \(info.lastTransactionID)")
