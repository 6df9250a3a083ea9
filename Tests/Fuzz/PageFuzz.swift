// libFuzzer target: the page-tree verifier that `check` runs before LMDB reads a store's pages
// (Sources/LMDB/Verification/PageTreeVerifier.swift, docs/reliability.md).
//
// Any bytes, read as an LMDB data file of 512-byte pages whose first two are meta pages (the
// seeds are small valid stores, which the fuzzer damages), must be judged — problems or none —
// never crash or hang, and judged the same way twice. Every page the walk accepts lies in the
// file: LMDB, which follows what the walk accepted, would never read outside its map.
func pageFuzz(_ bytes: UnsafeRawBufferPointer) {
    let pageSize = 512
    let image = Array(bytes)
    let pageCount = image.count / pageSize
    guard pageCount >= 2 else { return }
    let metas = (0..<2).compactMap { PageTreeVerifier.MetaPage(Array(image[($0 * pageSize)..<(($0 + 1) * pageSize)])) }
    guard let meta = metas.max(by: { $0.transactionID < $1.transactionID }) else { return }
    let read = { (number: Int) -> [UInt8]? in
        guard number >= 0, number < pageCount else { return nil }
        return Array(image[(number * pageSize)..<((number + 1) * pageSize)])
    }
    var first = PageTreeVerifier(pageSize: pageSize, lastPage: meta.lastPage, filePages: pageCount, readPage: read)
    let problems = first.verify(free: meta.free, main: meta.main)
    var second = PageTreeVerifier(pageSize: pageSize, lastPage: meta.lastPage, filePages: pageCount, readPage: read)
    fuzzCheck(second.verify(free: meta.free, main: meta.main) == problems, "two walks of one image disagree")
    for problem in problems { _ = problem.description }
}
