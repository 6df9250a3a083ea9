// `--profile build`: the compound index built over the loaded data, `--profile-operations` times
// (default 1), dropped before each build after the first. The build's work runs on the writer
// thread as well as the caller's, so Benchmarks/instructions.sh counts every thread of a run of N
// builds and of 2N and divides the difference by N and by the documents.
import DataStoreCore
import DataStoreKit
import Foundation

extension BenchmarkRun {
    /// Builds the compound index `--profile-operations` times, timing each build.
    func profileBuilds() async throws {
        let builds = configuration.profileOperations ?? 1
        let documents = Double(dataset.messages.count)
        for build in 0..<builds {
            if build > 0 { try await store.dropPairIndex() }
            progress("profile: DataStoreKit builds the compound index (\(build + 1) of \(builds))…")
            let start = Clock.wall()
            let cpu = ThreadTimes.processCPUSeconds()
            try await store.buildPairIndex()
            let seconds = Double(Clock.wall() - start) / 1e9
            progress(
                "  \(grouped(documents / seconds)) docs/s, wall \(fixed(seconds, 2)) s, process CPU "
                    + "\(fixed(ThreadTimes.processCPUSeconds() - cpu, 2)) s")
        }
    }
}
