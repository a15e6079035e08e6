import FarmCore
import FarmStore
import FarmWire
import Foundation
import Logging

/// The workers this coordinator hears: their routes, what each holds, who went silent, and
/// handing each its next chunks. OpenCue's HostReportHandler and Dispatcher in one place,
/// because both read the same table of sessions.
///
/// Every lookup is by worker, route or attempt, never a pass over all sessions, and every
/// free slot of the farm is filled by one claim: a farm of a thousand workers sends thousands
/// of messages a second, and the cost of each must not grow with the farm.
package final class WorkerSessions {
    private struct Session {
        var route: [UInt8]
        var info: WorkerInfo
        var lastHeard: ContinuousClock.Instant
        /// Every attempt the worker holds.
        var running: Set<AttemptKey> = []
        /// Those of `running` whose render is over and whose result is uploading.
        var uploading: Set<AttemptKey> = []
        var draining = false
        /// When the database last heard this worker's heartbeat, and whether it rendered then.
        var recorded: (at: ContinuousClock.Instant, rendering: Bool)?

        /// Attempts that occupy a render slot (`uploading` is always part of `running`).
        var rendering: Int { running.count - uploading.count }
        var freeSlots: Int { draining ? 0 : max(0, info.slots - rendering) }
    }

    private let store: SessionStore
    /// Progress off the loop on a farm; nil writes it to `store` in `recordReports`.
    private let progressSink: ProgressSink?
    private let outbox: MessageSending
    private let logger: Logger
    private let leaseSeconds: Double
    private let clock = ContinuousClock()
    private var sessions: [String: Session] = [:]
    /// Which worker each route is, so a message finds its sender without a pass over every session.
    private var workersByRoute: [[UInt8]: String] = [:]
    /// Which worker holds each attempt.
    private var holders: [AttemptKey: String] = [:]
    /// How log lines name the attempts this coordinator handed out ("job 3 chunk 22 attempt 1").
    private var labels: [AttemptKey: String] = [:]
    /// Workers that may have a free slot: the next claim asks for them and no one else.
    private var wanting: Set<String> = []
    /// Something freed a slot since the last claim.
    package private(set) var assignmentsPending = false
    /// When each attempt this coordinator holds was sent (`farm trace`).
    private var sent: [AttemptKey: Date] = [:]
    /// Each worker's latest heartbeat since the last `recordReports`.
    private var heartbeats: [String: Heartbeat] = [:]
    /// The latest progress of each attempt since the last `recordReports`.
    private var progressReports: [AttemptKey: FarmStore.ProgressRecord] = [:]

    /// A worker not heard for this long is given nothing until it is heard again: half a
    /// lease (heartbeats reach the database, renewing leases, several times a lease, so a lease
    /// expires only on a worker quiet for longer), and never under 2 s of a live one's jitter.
    package var quietSeconds: Double { max(leaseSeconds / 2, 2) }

    package init(
        store: SessionStore, outbox: MessageSending, logger: Logger, leaseSeconds: Double,
        progress: ProgressSink? = nil
    ) {
        self.store = store
        progressSink = progress
        self.outbox = outbox
        self.logger = logger
        self.leaseSeconds = leaseSeconds
    }

    package func hello(_ info: WorkerInfo, from route: [UInt8]) throws {
        let tags = (info.tags ?? []).isEmpty ? "" : ", tags \(info.tags!.joined(separator: ","))"
        let kind = info.kindSignature
        logger.info(
            """
            worker \(info.id) joined: \(info.host), \(info.cores) cores, \(info.slots) slots\(tags), \
            kind \(kind.signature) (\(kind.summary))
            """)
        note(info, route: route)
        // Recorded at once, since it may be new.
        let rendering = sessions[info.id]?.running.isEmpty == false
        sessions[info.id]?.draining = try store.workerSeen(info, rendering: rendering)
        sessions[info.id]?.recorded = (clock.now, rendering)
        reconsider(info.id)
        outbox.send(.welcome, to: route)
    }

    /// A worker's account of what it holds. What this coordinator gave it is taken at once, and
    /// the database hears it with the tick's other heartbeats (`recordReports`). An attempt it
    /// was not given (this coordinator restarted, or the peer is not what it says) counts only
    /// once the database agrees, so that heartbeat is recorded now.
    package func heartbeat(_ beat: Heartbeat, from route: [UInt8]) throws {
        let id = beat.worker.id
        let back = sessions[id] == nil
        if back { logger.info("worker \(id) is back") }
        let changed = sessions[id]?.info != beat.worker
        note(beat.worker, route: route)
        // A coordinator killed between committing a claim and sending it left the worker a
        // lease it never heard of: sent now, not waited out.
        if back {
            try resendLostClaims(
                of: id, besides: Set(beat.running), reason: "a coordinator before this one claimed it, never sending it"
            )
        }
        for key in beat.uploading ?? [] where holders[key] == id { sessions[id]?.uploading.insert(key) }
        reconsider(id)
        let recorded = sessions[id]?.recorded
        if beat.running.contains(where: { holders[$0] != id }) {
            heartbeats[id] = nil
            try record([id: beat])
        } else if changed || recorded == nil || recorded?.rendering != !beat.running.isEmpty
            || clock.now - recorded!.at >= .seconds(leaseSeconds / 4)
        {
            // Otherwise a few times a lease: what heartbeats cost the database follows the
            // farm's changes, not its size.
            heartbeats[id] = beat
        }
        outbox.send(.coordinatorHeartbeat, to: route)
    }

    /// Notes how far an attempt has come, for the next `recordReports`.
    func progress(_ report: ProgressReport, worker: String) {
        progressReports[report.key] = FarmStore.ProgressRecord(
            key: report.key, worker: worker, frames: report.frames, fps: report.fps)
    }

    /// Writes the heartbeats heard since the last call in one statement, and hands the progress
    /// to `progressSink` (written off the loop), or writes it in one statement without one.
    package func recordReports() throws {
        let progress = Array(progressReports.values)
        progressReports.removeAll(keepingCapacity: true)
        if let progressSink { progressSink.write(progress) } else { try store.recordProgress(progress) }
        let beats = heartbeats
        heartbeats.removeAll(keepingCapacity: true)
        try record(beats)
    }

    /// Records `beats` and acts on what the database answers: attempts a worker reported that
    /// are its own are held (and their leases renewed), the others cancelled, and a draining
    /// worker's attempts not started yet taken back.
    private func record(_ beats: [String: Heartbeat]) throws {
        guard !beats.isEmpty else { return }
        let outcome = try store.recordHeartbeats(
            beats.values.map { FarmStore.HeartbeatReport(worker: $0.worker, holding: $0.running) },
            leaseSeconds: leaseSeconds)
        for (id, beat) in beats {
            guard let route = sessions[id]?.route else { continue }
            sessions[id]?.recorded = (clock.now, !beat.running.isEmpty)
            sessions[id]?.draining = outcome.draining.contains(id)
            let stale = Set(outcome.stale[id] ?? [])
            for key in beat.running where !stale.contains(key) && holders[key] == nil { hold(key, worker: id) }
            for key in beat.uploading ?? [] where holders[key] == id { sessions[id]?.uploading.insert(key) }
            for key in beat.running where stale.contains(key) {
                if holders[key] == id { release(key) }
                outbox.send(.cancel(Verdict.stale(key)), to: route)
            }
            if outcome.draining.contains(id) {
                for key in beat.waiting ?? [] where !stale.contains(key) && holders[key] == id {
                    logger.info("worker \(id) is draining; taking back \(label(key)) before it starts")
                    try store.giveBack(key, reason: "worker \(id) is draining")
                    release(key)
                    outbox.send(.cancel(Verdict(key: key, reason: "worker draining")), to: route)
                }
            }
            reconsider(id)
        }
    }

    /// The worker spoke on `route`: its session is found by it from now on.
    private func note(_ info: WorkerInfo, route: [UInt8]) {
        var session = sessions[info.id] ?? Session(route: route, info: info, lastHeard: clock.now)
        if session.route != route { workersByRoute[session.route] = nil }
        workersByRoute[route] = info.id
        session.route = route
        session.info = info
        session.lastHeard = clock.now
        sessions[info.id] = session
    }

    /// Gives every worker a chunk for each free render slot, with one claim for the whole
    /// farm. A chunk whose render is over and uploads frees its slot, so the next render
    /// overlaps the upload; no chunk ever waits on a busy worker while another could render it.
    package func assignChunks() throws {
        assignmentsPending = false
        let quiet = Duration.seconds(quietSeconds)
        let requests = wanting.sorted().compactMap { id in
            sessions[id].flatMap { session in
                // A worker killed mid-chunk frees its slot when the chunk's lease expires, a
                // little before it is marked lost: it must not be given the next chunk.
                clock.now - session.lastHeard > quiet ? nil : ClaimRequest(worker: id, count: session.freeSlots)
            }
        }
        for claimed in try store.claim(requests, leaseSeconds: leaseSeconds) {
            guard let route = sessions[claimed.worker]?.route else { continue }
            hold(claimed)
            // The claim marked it rendering in the database.
            sessions[claimed.worker]?.recorded?.rendering = true
            sent[claimed.key] = Date()
            outbox.send(.assign(Assignment(claimed)), to: route)
        }
        // A worker left wanting has slots the queue could not fill; the next claim asks again.
        reconsiderAll()
    }

    private func reconsiderAll() {
        for id in wanting { reconsider(id) }
    }

    /// After the database came back: a claim it committed whose answer was lost with the
    /// connection is sent now, so its chunk does not wait out a lease on a worker that never
    /// heard of it. (A worker ignores an assignment it already holds.)
    package func resendLostClaims() throws {
        try resendLostClaims(of: nil, besides: [], reason: "the database went away before the claim's answer")
    }

    /// Sends again the attempts leased to `worker` (every worker with a session when nil) that
    /// neither this coordinator holds for it nor the worker reported (`besides`).
    private func resendLostClaims(of worker: String?, besides reported: Set<AttemptKey>, reason: String) throws {
        let workers = worker.map { [$0] } ?? sessions.keys.sorted()
        for claimed in try store.leased(to: workers)
        where holders[claimed.key] == nil && !reported.contains(claimed.key) {
            guard let route = sessions[claimed.worker]?.route else { continue }
            hold(claimed)
            logger.info("sending \(label(claimed.key)) to \(claimed.worker) again: \(reason)")
            outbox.send(.assign(Assignment(claimed)), to: route)
        }
        reconsiderAll()
    }

    /// Claims at the end of the loop's batch of messages if one of them freed a slot.
    package func assignIfPending() throws {
        if assignmentsPending { try assignChunks() }
    }

    /// When the assignment of `key` went out, if this coordinator sent it.
    func sentAt(_ key: AttemptKey) -> Date? { sent[key] }

    /// Forgets that any worker holds `key` (it ended, failed or was taken back).
    package func release(_ key: AttemptKey) {
        labels[key] = nil
        sent[key] = nil
        guard let id = holders.removeValue(forKey: key) else { return }
        sessions[id]?.running.remove(key)
        sessions[id]?.uploading.remove(key)
        reconsider(id)
    }

    /// Notes that `key`'s render is over and its result uploads; true if that freed a slot.
    package func uploading(_ key: AttemptKey) -> Bool {
        guard let id = holders[key], sessions[id]?.uploading.insert(key).inserted == true else { return false }
        reconsider(id)
        return true
    }

    /// Marks workers lost that were not heard for a lease.
    func dropSilent() throws {
        let silence = Duration.seconds(leaseSeconds)
        for (id, session) in sessions where clock.now - session.lastHeard > silence {
            logger.warning("worker \(id) went silent; marking it lost")
            sessions[id] = nil
            workersByRoute[session.route] = nil
            wanting.remove(id)
            for key in session.running {
                holders[key] = nil
                sent[key] = nil
            }
            try store.workerLost(id)
        }
    }

    /// Marks lost the workers the database lists as live that no coordinator has heard for a
    /// lease and this one has no session with: an earlier coordinator's, killed before it could
    /// say they were gone.
    func dropStale() throws {
        for id in try store.markSilentWorkersLost(after: leaseSeconds, besides: Array(sessions.keys)) {
            logger.warning("worker \(id) has not been heard for \(Int(leaseSeconds)) s; marking it lost")
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

    /// How log lines name `key`: by job, chunk or audio block, and attempt, as the worker and the
    /// command line do; by its row only if this coordinator did not hand it out.
    func label(_ key: AttemptKey) -> String { labels[key] ?? key.description }

    /// Whether the worker behind `route` holds `key` (assigned it, or reported it since).
    package func holds(_ key: AttemptKey, route: [UInt8]) -> Bool {
        guard let worker = worker(at: route) else { return false }
        return holders[key] == worker
    }

    /// The worker whose session `route` is, once it said hello or sent a heartbeat.
    package func worker(at route: [UInt8]) -> String? {
        workersByRoute[route]
    }

    /// The worker's id for messages, or the route in hex if no session has it.
    package func name(of route: [UInt8]) -> String {
        worker(at: route) ?? "connection " + route.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// Holds a chunk the store leased, named for log lines as every tool names it.
    private func hold(_ claimed: ClaimedChunk) {
        hold(claimed.key, worker: claimed.worker)
        labels[claimed.key] = claimed.work.label(job: claimed.job, attempt: claimed.key.attempt)
    }

    private func hold(_ key: AttemptKey, worker id: String) {
        if let previous = holders[key], previous != id {
            sessions[previous]?.running.remove(key)
            sessions[previous]?.uploading.remove(key)
            reconsider(previous)
        }
        holders[key] = id
        sessions[id]?.running.insert(key)
    }

    /// Keeps `wanting` true to the session: in it exactly when the worker has a free slot.
    private func reconsider(_ id: String) {
        guard let session = sessions[id] else {
            wanting.remove(id)
            return
        }
        if session.freeSlots > 0 {
            if wanting.insert(id).inserted { assignmentsPending = true }
        } else {
            wanting.remove(id)
        }
    }
}

extension Assignment {
    /// What the worker is told about a chunk the store leased to it.
    init(_ claimed: ClaimedChunk) {
        self.init(
            key: claimed.key, job: claimed.job, work: claimed.work, projectText: claimed.projectText,
            projectFile: claimed.projectFile, mediaRoot: claimed.mediaRoot, mediaPins: claimed.mediaPins,
            programmeGain: claimed.programmeGain)
    }
}
