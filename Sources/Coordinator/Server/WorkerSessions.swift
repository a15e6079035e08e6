import FarmCore
import FarmStore
import FarmWire
import Logging

/// The workers this coordinator hears: their routes, what each holds, who went silent, and
/// handing each its next chunks. OpenCue's HostReportHandler and Dispatcher in one place,
/// because both read the same table of sessions.
final class WorkerSessions {
    private struct Session {
        var route: [UInt8]
        var info: WorkerInfo
        var lastHeard: ContinuousClock.Instant
        /// Every attempt the worker holds.
        var running: Set<AttemptKey> = []
        /// Those of `running` whose render is over and whose result is uploading.
        var uploading: Set<AttemptKey> = []
        var draining = false

        /// Attempts that occupy a render slot.
        var rendering: Int { running.subtracting(uploading).count }
    }

    private let store: FarmStore
    private let outbox: Outbox
    private let logger: Logger
    private let leaseSeconds: Double
    private let clock = ContinuousClock()
    private var sessions: [String: Session] = [:]
    /// Which worker each route is, so a message finds its sender without a pass over every
    /// session (a farm of a thousand workers sends thousands of progress reports a second).
    private var workersByRoute: [[UInt8]: String] = [:]

    init(store: FarmStore, outbox: Outbox, logger: Logger, leaseSeconds: Double) {
        self.store = store
        self.outbox = outbox
        self.logger = logger
        self.leaseSeconds = leaseSeconds
    }

    func hello(_ info: WorkerInfo, from route: [UInt8]) throws {
        logger.info(
            "worker \(info.id) joined: \(info.host), \(info.cores) cores, \(info.slots) slots, farm \(info.version)")
        try heard(info, route: route, rendering: nil)
        outbox.send(.welcome, to: route)
    }

    func heartbeat(_ beat: Heartbeat, from route: [UInt8]) throws {
        let id = beat.worker.id
        if sessions[id] == nil { logger.info("worker \(id) is back") }
        // The worker's own list says whether it renders: a cancelled chunk counts until it has really stopped.
        try heard(beat.worker, route: route, rendering: !beat.running.isEmpty)
        sessions[id]?.running.formUnion(beat.running)
        sessions[id]?.uploading.formUnion(beat.uploading ?? [])
        let stale = try store.renewLeases(worker: id, holding: beat.running, leaseSeconds: leaseSeconds)
        for key in stale {
            sessions[id]?.running.remove(key)
            outbox.send(.cancel(Verdict.stale(key)), to: route)
        }
        if sessions[id]?.draining == true {
            for key in beat.waiting ?? [] where !stale.contains(key) {
                logger.info("worker \(id) is draining; taking back \(key) before it starts")
                try store.giveBack(key, reason: "worker \(id) is draining")
                release(key)
                outbox.send(.cancel(Verdict(key: key, reason: "worker draining")), to: route)
            }
        }
        outbox.send(.coordinatorHeartbeat, to: route)
    }

    /// `rendering` is what the worker reported, or nil to go by what this coordinator assigned.
    private func heard(_ info: WorkerInfo, route: [UInt8], rendering: Bool?) throws {
        var session = sessions[info.id] ?? Session(route: route, info: info, lastHeard: clock.now)
        if session.route != route { workersByRoute[session.route] = nil }
        workersByRoute[route] = info.id
        session.route = route
        session.info = info
        session.lastHeard = clock.now
        session.draining = try store.workerSeen(info, rendering: rendering ?? !session.running.isEmpty)
        sessions[info.id] = session
    }

    /// Gives every worker a chunk for each free render slot. A chunk whose render is over and
    /// uploads frees its slot, so the next render overlaps the upload; no chunk ever waits on a
    /// busy worker while another worker could render it.
    func assignChunks() throws {
        for id in sessions.keys.sorted() {
            while let session = sessions[id], !session.draining, session.rendering < session.info.slots {
                guard let claimed = try store.claim(worker: id, leaseSeconds: leaseSeconds) else { break }
                sessions[id]?.running.insert(claimed.key)
                try store.workerSeen(session.info, rendering: true)
                outbox.send(.assign(Assignment(claimed)), to: session.route)
            }
        }
    }

    /// Forgets that any worker holds `key` (it ended, failed or was taken back).
    func release(_ key: AttemptKey) {
        for id in sessions.keys {
            sessions[id]?.running.remove(key)
            sessions[id]?.uploading.remove(key)
        }
    }

    /// Notes that `key`'s render is over and its result uploads; true if that freed a slot.
    func uploading(_ key: AttemptKey) -> Bool {
        guard let id = sessions.first(where: { $0.value.running.contains(key) })?.key else { return false }
        return sessions[id]?.uploading.insert(key).inserted ?? false
    }

    /// Marks workers lost that were not heard for a lease.
    func dropSilent() throws {
        let silence = Duration.seconds(leaseSeconds)
        for (id, session) in sessions where clock.now - session.lastHeard > silence {
            logger.warning("worker \(id) went silent; marking it lost")
            sessions[id] = nil
            workersByRoute[session.route] = nil
            try store.workerLost(id)
        }
    }

    /// Nothing was read while the database was away: a worker's silence then was ours.
    func forgiveSilence() {
        for id in sessions.keys { sessions[id]?.lastHeard = clock.now }
    }

    /// No one hears them once the coordinator stops; a coordinator that starts again marks them
    /// seen at their next heartbeat.
    func markAllLost() throws {
        for id in sessions.keys { try store.workerLost(id) }
    }

    func route(of worker: String) -> [UInt8]? { sessions[worker]?.route }

    /// Whether the worker behind `route` holds `key` (assigned it, or reported it since).
    func holds(_ key: AttemptKey, route: [UInt8]) -> Bool {
        worker(at: route).flatMap { sessions[$0]?.running.contains(key) } ?? false
    }

    /// The worker whose session `route` is, once it said hello or sent a heartbeat.
    func worker(at route: [UInt8]) -> String? {
        workersByRoute[route]
    }

    /// The worker's id for messages, or the route in hex if no session has it.
    func name(of route: [UInt8]) -> String {
        worker(at: route) ?? "connection " + route.prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}

extension Assignment {
    /// What the worker is told about a chunk the store leased to it.
    init(_ claimed: ClaimedChunk) {
        self.init(
            key: claimed.key, job: claimed.job, kind: claimed.kind, chunk: claimed.chunk,
            projectText: claimed.projectText,
            projectFile: claimed.projectFile, mediaRoot: claimed.mediaRoot, mediaPins: claimed.mediaPins)
    }
}
