/// Where a job's time went: every attempt's instants (seconds since 1970, the coordinator's
/// clock), and the job's own; `JobTrace.Summary` reads them as phases, worker slots and the
/// coordinator's share. `farm trace` prints it; the dashboard draws it.
public struct JobTrace: Codable, Sendable, Hashable {
    public struct Attempt: Codable, Sendable, Hashable {
        public var kind: ChunkKind
        public var index: Int
        public var attempt: Int
        public var worker: String
        public var outcome: String
        /// The claim, by the database's clock.
        public var claimed: Double
        public var sent: Double?
        public var received: Double?
        public var renderStarted: Double?
        public var rendered: Double?
        public var uploaded: Double?
        public var verified: Double?
        public var accepted: Double?
        /// When it ended, however (the database's clock).
        public var ended: Double?

        public init(
            kind: ChunkKind, index: Int, attempt: Int, worker: String, outcome: String, claimed: Double,
            sent: Double?, received: Double?, renderStarted: Double?, rendered: Double?, uploaded: Double?,
            verified: Double?, accepted: Double?, ended: Double?
        ) {
            self.kind = kind
            self.index = index
            self.attempt = attempt
            self.worker = worker
            self.outcome = outcome
            self.claimed = claimed
            self.sent = sent
            self.received = received
            self.renderStarted = renderStarted
            self.rendered = rendered
            self.uploaded = uploaded
            self.verified = verified
            self.accepted = accepted
            self.ended = ended
        }

        /// Its phases from sent to accepted, which add up to that span; nil unless every
        /// instant was recorded (an attempt accepted by this version's coordinator).
        public var phases: Phases? {
            guard let sent, let received, let renderStarted, let rendered, let uploaded, let verified, let accepted
            else { return nil }
            return Phases(
                delivering: received - sent, waiting: renderStarted - received, rendering: rendered - renderStarted,
                uploading: uploaded - rendered, verifying: verified - uploaded, accepting: accepted - verified)
        }

        /// "chunk 3" or "audio block 0".
        public var name: String { kind == .video ? "chunk \(index)" : "\(kind.rawValue) block \(index)" }
    }

    /// An attempt's time from the coordinator sending it to accepting it, in seconds.
    public struct Phases: Codable, Sendable, Hashable {
        /// Sent until the worker had it (the network, both ways, and the worker's loop).
        public var delivering: Double
        /// On the worker before a render slot took it.
        public var waiting: Double
        public var rendering: Double
        /// From the render's end until the whole file was in and its `done` heard.
        public var uploading: Double
        /// Checksum, media check and sync on the coordinator.
        public var verifying: Double
        /// Until the acceptance was committed.
        public var accepting: Double

        public var total: Double { delivering + waiting + rendering + uploading + verifying + accepting }

        static let zero = Phases(delivering: 0, waiting: 0, rendering: 0, uploading: 0, verifying: 0, accepting: 0)

        static func + (a: Phases, b: Phases) -> Phases {
            Phases(
                delivering: a.delivering + b.delivering, waiting: a.waiting + b.waiting,
                rendering: a.rendering + b.rendering, uploading: a.uploading + b.uploading,
                verifying: a.verifying + b.verifying, accepting: a.accepting + b.accepting)
        }
    }

    public var job: Int64
    public var submitted: Double
    public var started: Double?
    public var joinStarted: Double?
    public var joined: Double?
    public var checked: Double?
    public var finished: Double?
    public var attempts: [Attempt] = []

    public init(
        job: Int64, submitted: Double, started: Double?, joinStarted: Double?, joined: Double?, checked: Double?,
        finished: Double?
    ) {
        self.job = job
        self.submitted = submitted
        self.started = started
        self.joinStarted = joinStarted
        self.joined = joined
        self.checked = checked
        self.finished = finished
    }
}
