import FarmCore
import FarmHTTP
import FarmStore
import Testing

/// `GET /metrics` as Prometheus's text format (0.0.4) reads it: every family with its HELP and
/// TYPE before its samples, label values quoted as the format escapes them, counts as whole
/// numbers, histograms with cumulative buckets up to `+Inf`, a sum and a count.
@Suite struct MetricsTextTests {
    static func metrics(workerFps: [(worker: String, fps: Double)] = []) -> FarmMetrics {
        FarmMetrics(
            coordinatorUp: true, jobs: [.running: 2, .done: 5], chunks: (3, 2, 40, 1, 0),
            workers: ["live": 2, "gone": 1], workerFps: workerFps, segmentBytes: 1_048_576,
            databaseSeconds: 0.0025, counters: [.framesRendered: 1200, .uploadBytes: 3.5e6],
            histograms: [
                .joinSeconds: HistogramValues(
                    buckets: [(le: 0.5, count: 1), (le: 2.5, count: 3), (le: .infinity, count: 4)], sum: 7.25,
                    count: 4)
            ])
    }

    @Test func everyFamilyHasItsHelpAndTypeBeforeItsSamples() {
        let lines = MetricsText.render(Self.metrics()).split(separator: "\n").map(String.init)
        var declared: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                declared.insert(String(line.split(separator: " ")[2]))
            } else if !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                    name.hasSuffix(suffix) && declared.contains(String(name.dropLast(suffix.count)))
                        ? String(name.dropLast(suffix.count)) : name
                }
                #expect(declared.contains(family), "\(line) comes before its # TYPE")
            }
        }
        #expect(lines.filter { $0.hasPrefix("# HELP ") }.count == declared.count)
    }

    @Test func jobsOfEveryStateAreListedWithZerosAndCountsAreWholeNumbers() {
        let text = MetricsText.render(Self.metrics())
        for state in JobState.allCases {
            let expected = state == .running ? 2 : state == .done ? 5 : 0
            #expect(text.contains("farm_jobs{state=\"\(state.rawValue)\"} \(expected)\n"))
        }
        #expect(text.contains("farm_frames_rendered_total 1200\n"))
        #expect(text.contains("farm_upload_bytes_total 3500000\n"))
        #expect(text.contains("farm_database_round_trip_seconds 0.0025\n"))
        #expect(text.contains("farm_coordinator_up 1\n"))
        #expect(text.contains("farm_chunks{state=\"failed\"} 1\n"))
    }

    @Test func aWorkersNameIsEscapedAsTheFormatQuotesLabelValues() {
        let text = MetricsText.render(Self.metrics(workerFps: [(worker: "a\"b\\c\nd", fps: 12.5)]))
        #expect(text.contains(#"farm_worker_fps{worker="a\"b\\c\nd"} 12.5"# + "\n"), "\(text)")
    }

    @Test func aHistogramEndsAtInfWithItsSumAndCount() {
        let text = MetricsText.render(Self.metrics())
        #expect(text.contains("# TYPE farm_join_seconds histogram\n"))
        #expect(text.contains("farm_join_seconds_bucket{le=\"0.5\"} 1\n"))
        #expect(text.contains("farm_join_seconds_bucket{le=\"2.5\"} 3\n"))
        #expect(text.contains("farm_join_seconds_bucket{le=\"+Inf\"} 4\n"))
        #expect(text.contains("farm_join_seconds_sum 7.25\nfarm_join_seconds_count 4\n"))
        // A histogram with no values yet is left out rather than shown empty.
        #expect(!text.contains("farm_verify_seconds"))
    }
}
