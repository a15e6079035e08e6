import FarmCore
import FarmPostgres
import FarmStore
import Foundation

/// What a claim costs when jobs that none of the claimants may take (another pool's, another
/// kind's) wait ahead of the one they may: 1,000 workers seen, claims of 50 slots from a job of
/// 100,000 chunks, timed with nothing ahead (the baseline) and then with `untakeable` jobs of a
/// higher priority requiring a tag no worker has.
enum ClaimBench {
    static func run(untakeable: Int) throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "farm-bench-claims-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try PrivatePostgres(directory: folder.appendingPathComponent("db"))
        try database.start()
        defer { database.stop() }
        let store = try FarmStore(url: database.connectionString)
        for index in 0..<1000 {
            try store.workerSeen(
                WorkerInfo(id: "w\(index)", host: "bench", cores: 2, slots: 1, version: "bench"), rendering: false)
        }
        _ = try store.submit(job(chunks: 100_000, priority: 0, requires: []))
        let baseline = try timeClaims(store)
        for _ in 0..<untakeable { _ = try store.submit(job(chunks: 10, priority: 5, requires: ["gpu"])) }
        let ahead = try timeClaims(store)
        print("claims of 50 slots by 1,000 workers seen, 40 timed each (median, slowest):")
        print("  nothing ahead                    \(format(baseline))")
        print("  \(untakeable) jobs no claimant may take ahead \(format(ahead))")
        print(
            String(
                format: "  ratio of medians                 %.2f", ahead[ahead.count / 2] / baseline[baseline.count / 2]
            ))
    }

    /// Milliseconds of 40 claims of 50 slots each, sorted; each claim must fill every slot.
    static func timeClaims(_ store: FarmStore) throws -> [Double] {
        let clock = ContinuousClock()
        var times: [Double] = []
        for round in 0..<40 {
            let requests = (0..<50).map { ClaimRequest(worker: "w\((round * 50 + $0) % 1000)", count: 1) }
            let start = clock.now
            let claimed = try store.claim(requests, leaseSeconds: 600)
            times.append((clock.now - start) / .milliseconds(1))
            guard claimed.count == 50 else { throw BenchError("a claim of 50 slots got \(claimed.count)") }
        }
        return times.sorted()
    }

    static func job(chunks: Int, priority: Int, requires: [String]) -> JobSubmission {
        var job = JobSubmission(
            name: "bench", projectFile: "/bench.json", projectText: "{}", mediaRoot: "/media", outputPath: "/out.mp4",
            container: .mp4, fps: Rational(30), frameCount: Int64(chunks * 10), width: 64, height: 64,
            priority: priority,
            chunks: (0..<chunks).map { Chunk(index: $0, start: Int64($0 * 10), end: Int64($0 * 10 + 10)) },
            audioBlocks: [], sampleRate: 48000)
        job.requires = requires
        return job
    }

    static func format(_ sorted: [Double]) -> String {
        String(format: "%6.2f ms, %6.2f ms", sorted[sorted.count / 2], sorted.last ?? 0)
    }
}
