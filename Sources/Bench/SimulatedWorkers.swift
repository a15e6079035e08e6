import FarmCore
import FarmWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Workers that speak the farm's protocol over real ZeroMQ sockets without rendering: each says
/// hello, heartbeats every second, and `renderTime` after an assignment sends a progress report
/// and the heartbeat a real worker sends when a render ends, naming the attempt as uploading,
/// which frees its slot. With no render time they ask as fast as they are served: the
/// coordinator's capacity; with one, they offer a load (workers × slots / render time per
/// second) and the latency is what a worker waits at that load. Uploads are not sent: taking
/// them in is verification's cost, measured by `ops/bench-long.sh`, not the scheduler's. One
/// thread drives them all, so a thousand workers cost a thousand sockets, not a thousand
/// processes.
final class SimulatedWorkers {
    private struct Worker {
        var socket: MessageSocket
        var info: WorkerInfo
        /// When each free slot was freed, oldest first: an assignment's latency is from then.
        var freeSince: [ContinuousClock.Instant]
        /// Attempts held since the last heartbeat (upload started; a real one would be in flight).
        var uploading: [AttemptKey] = []
        var lastBeat: ContinuousClock.Instant
    }

    private var workers: [Worker] = []
    private let clock = ContinuousClock()
    private let renderTime: Duration
    /// Renders under way, in the order they end (every render takes `renderTime`).
    private var rendering: [(ends: ContinuousClock.Instant, worker: Int, key: AttemptKey, frames: Int64)] = []
    private var nextRender = 0
    /// Seconds from a slot freed to its next assignment, for assignments since `startCounting`.
    private(set) var latencies: [Double] = []
    private(set) var assignments = 0
    private var counting = false
    /// Workers whose socket sent since it was last read: a send may take the descriptor's
    /// signal of a message already waiting (`ZMQ_FD`), so each is read again before the next poll.
    private var sentOn: Set<Int> = []

    init(count: Int, slots: Int, renderTime: Duration, endpoint: String) throws {
        self.renderTime = renderTime
        MessageSocket.allow(sockets: count + 64)
        for index in 0..<count {
            let socket = try MessageSocket(.dealer)
            try socket.connect(endpoint)
            let info = WorkerInfo(
                id: String(format: "sim-%04d", index), host: "simulated", cores: 1, slots: slots,
                version: FarmVersion.current)
            workers.append(Worker(socket: socket, info: info, freeSince: [], lastBeat: clock.now))
        }
    }

    /// Every worker says hello; its slots are free from now.
    func join() throws {
        for index in workers.indices {
            workers[index].freeSince = Array(repeating: clock.now, count: workers[index].info.slots)
            try workers[index].socket.send(WireMessage.hello(workers[index].info).encoded())
        }
    }

    func startCounting() {
        counting = true
        latencies.removeAll(keepingCapacity: true)
        assignments = 0
    }

    /// Serves the sockets until `deadline`. The kernel's poll over the sockets' signal
    /// descriptors wakes only for the sockets with news (`zmq_poll` asks each of a thousand
    /// sockets for its state on every call), and a sweep of every socket ten times a second
    /// catches a signal consumed by a send.
    func run(until deadline: ContinuousClock.Instant) throws {
        var descriptors = workers.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
        var lastSweep = clock.now
        while clock.now < deadline {
            let wait =
                nextRender < rendering.count ? max(0, (rendering[nextRender].ends - clock.now) / .milliseconds(1)) : 10
            if poll(&descriptors, nfds_t(descriptors.count), Int32(min(10, wait.rounded(.up)))) > 0 {
                for index in descriptors.indices where descriptors[index].revents != 0 { try drain(index) }
            }
            try finishRenders()
            if clock.now - lastSweep >= .milliseconds(100) {
                lastSweep = clock.now
                for index in workers.indices { try drain(index) }
                try heartbeat()
            }
            while let index = sentOn.popFirst() { try drain(index) }
        }
    }

    private func drain(_ index: Int) throws {
        while workers[index].socket.hasMessage, let frames = try workers[index].socket.receive(timeout: 0) {
            try handle(WireMessage(frames: frames), worker: index)
        }
    }

    private func handle(_ message: WireMessage, worker index: Int) throws {
        guard case .assign(let assignment) = message else { return }
        let now = clock.now
        if counting {
            assignments += 1
            if !workers[index].freeSince.isEmpty { latencies.append((now - workers[index].freeSince[0]) / .seconds(1)) }
        }
        if !workers[index].freeSince.isEmpty { workers[index].freeSince.removeFirst() }
        // Progress counts frames; an audio block has none.
        let frames: Int64 = if case .video(let chunk) = assignment.work { chunk.frameCount } else { 0 }
        rendering.append((now + renderTime, index, assignment.key, frames))
        try finishRenders()
    }

    /// Ends the renders whose time is up: progress, then the heartbeat that frees the slot.
    private func finishRenders() throws {
        while nextRender < rendering.count, rendering[nextRender].ends <= clock.now {
            let (_, index, key, frames) = rendering[nextRender]
            nextRender += 1
            try workers[index].socket.send(
                WireMessage.progress(ProgressReport(key: key, frames: frames, fps: 1000)).encoded())
            workers[index].uploading.append(key)
            workers[index].freeSince.append(clock.now)
            try beat(index)
        }
        if nextRender > 4096 {
            rendering.removeFirst(nextRender)
            nextRender = 0
        }
    }

    /// A heartbeat a second per worker.
    private func heartbeat() throws {
        let now = clock.now
        for index in workers.indices where now - workers[index].lastBeat >= .seconds(1) { try beat(index) }
    }

    /// Names the uploads started since the last heartbeat but one: an upload lasts about a second.
    private func beat(_ index: Int) throws {
        let held = workers[index].uploading
        let beat = Heartbeat(worker: workers[index].info, running: held, waiting: [], uploading: held)
        try workers[index].socket.send(WireMessage.heartbeat(beat).encoded())
        sentOn.insert(index)
        let now = clock.now
        if now - workers[index].lastBeat >= .seconds(1) {
            workers[index].uploading.removeAll(keepingCapacity: true)
            workers[index].lastBeat = now
        }
    }
}
