import FarmCore

/// `GET /api/jobs/:id/trace`: what `farm trace JOB --json` prints, the instants and their reading.
struct TraceAnswer: Codable, Sendable {
    var trace: JobTrace
    var summary: JobTrace.Summary
}
