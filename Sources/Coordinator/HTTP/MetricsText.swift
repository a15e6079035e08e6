import FarmCore
import FarmStore

/// `FarmMetrics` in Prometheus's text exposition format (version 0.0.4).
package enum MetricsText {
    package static func render(_ metrics: FarmMetrics) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples { out += "\(name)\(sample.labels) \(sample.value)\n" }
        }
        metric(
            "farm_coordinator_up", "gauge", "1 when a coordinator serves the farm (it records itself every 5 s)",
            [("", metrics.coordinatorUp ? "1" : "0")])
        metric(
            "farm_jobs", "gauge", "Jobs by state",
            JobState.allCases.map { (#"{state="\#($0.rawValue)"}"#, String(metrics.jobs[$0] ?? 0)) })
        metric(
            "farm_chunks", "gauge", "Video chunks and audio blocks by state, over every job",
            [
                (#"{state="queued"}"#, String(metrics.chunks.queued)),
                (#"{state="running"}"#, String(metrics.chunks.running)),
                (#"{state="done"}"#, String(metrics.chunks.done)),
                (#"{state="failed"}"#, String(metrics.chunks.failed)),
                (#"{state="unfinished"}"#, String(metrics.chunks.unfinished)),
            ])
        metric(
            "farm_workers", "gauge", "Workers by state",
            metrics.workers.sorted { $0.key < $1.key }.map { (#"{state="\#($0.key)"}"#, String($0.value)) })
        metric(
            "farm_worker_fps", "gauge",
            "Each live worker's frames per second now: its rendering chunks' speeds over their last few seconds",
            metrics.workerFps.map { (#"{worker="\#(escaped($0.worker))"}"#, String($0.fps)) })
        metric(
            "farm_segment_bytes", "gauge", "Bytes finished jobs' segments hold in the coordinator's data folder",
            [("", String(metrics.segmentBytes))])
        metric(
            "farm_database_round_trip_seconds", "gauge", "One SELECT 1 to the farm's database, timed at this scrape",
            [("", String(metrics.databaseSeconds))])
        let help: [FarmCounter: String] = [
            .leaseExpiries: "Leases that expired: a worker went silent and its chunk went back to the queue",
            .failedAttempts: "Attempts that failed (a render error or a segment that failed verification)",
            .uploadBytes: "Bytes of accepted uploads (segments and audio blocks)",
            .samplesRendered: "Audio samples of every accepted audio block",
            .framesRendered: "Video frames of every accepted chunk (not those taken from the segment cache)",
            .chunksReused: "Video chunks and audio blocks taken from the segment cache at submission",
        ]
        for counter in FarmCounter.allCases {
            metric(counter.rawValue, "counter", help[counter] ?? "", [("", number(metrics.counters[counter] ?? 0))])
        }
        let histogramHelp: [FarmHistogram: String] = [
            .verifySeconds: "Seconds the coordinator took to check an upload (checksum, decode check, sync)",
            .joinSeconds: "Seconds a job's join took, segments to the final file",
        ]
        for histogram in FarmHistogram.allCases {
            guard let values = metrics.histograms[histogram] else { continue }
            let name = histogram.rawValue
            out += "# HELP \(name) \(histogramHelp[histogram] ?? "")\n# TYPE \(name) histogram\n"
            for bucket in values.buckets {
                let bound = bucket.le.isInfinite ? "+Inf" : String(bucket.le)
                out += "\(name)_bucket{le=\"\(bound)\"} \(number(bucket.count))\n"
            }
            out += "\(name)_sum \(values.sum)\n\(name)_count \(number(values.count))\n"
        }
        return out
    }

    /// A count as a whole number when it is one.
    private static func number(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A label value as the format quotes it.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
