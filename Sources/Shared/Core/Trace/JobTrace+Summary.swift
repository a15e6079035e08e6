extension JobTrace {
    /// One render slot of a worker: the renders it ran, one after another.
    public struct Slot: Codable, Sendable, Hashable {
        public var worker: String
        /// 0 for a worker's first slot; a worker with more slots has more rows.
        public var lane: Int
        /// Renders as [start, end] seconds from the job's first sent assignment, with their names.
        public var renders: [Render]
        public var rendering: Double
        /// Not rendering, from the first assignment to the last acceptance.
        public var idle: Double
        /// Not rendering while a task of the job was still queued and none waited on this worker.
        public var idleWhileQueued: Double
        /// How often that happened.
        public var idleWhileQueuedGaps: Int
        /// The share of the time rendering from the first assignment to the last render's start.
        public var busyUntilLastStart: Double
    }

    public struct Render: Codable, Sendable, Hashable {
        public var name: String
        public var start: Double
        public var end: Double
    }

    public struct Summary: Codable, Sendable, Hashable {
        /// Attempts with every instant recorded, and their phases added up.
        public var attemptsTraced: Int
        public var phases: Phases
        public var slots: [Slot]
        /// Seconds from the job's first assignment: the last render's start and end, the last
        /// acceptance, the join's start, the file written, the QC measured, the job's end.
        public var lastRenderStart: Double?
        public var lastRenderEnd: Double?
        public var lastAccepted: Double?
        public var joinStarted: Double?
        public var joined: Double?
        public var checked: Double?
        public var finished: Double?
        /// Submitted until the first assignment was sent.
        public var startup: Double?
    }

    /// How far two renders of one slot may seem to overlap: each is placed back from when the
    /// coordinator handled its own `done`, so each carries that message's delay (64 ms seen
    /// between two audio blocks of a 5-minute job on 2 cores; a phantom second slot row followed
    /// from a 50 ms allowance).
    static let placementTolerance = 0.25

    /// Reads the instants as phases and slots; times in seconds from the first assignment.
    /// Sorting bounds its cost: a job of 100,000 attempts is read in O(n log n).
    public var summary: Summary {
        let traced = attempts.filter { $0.phases != nil }
        let origin = traced.compactMap(\.sent).min() ?? submitted
        let at = { (instant: Double?) in instant.map { $0 - origin } }
        let phases = traced.compactMap(\.phases).reduce(Phases.zero, +)
        let lastAccepted = traced.compactMap(\.accepted).max()
        let end = lastAccepted ?? origin
        let lastStart = traced.compactMap(\.renderStarted).max()
        // At a render's end, a task sent later was still queued (sent is the claim's answer).
        let lastSent = attempts.compactMap(\.sent).max()
        var slots: [Slot] = []
        let byWorker = Dictionary(grouping: traced, by: \.worker)
        for worker in byWorker.keys.sorted() {
            let mine = WorkerRenders(byWorker[worker]!)
            // Renders into lanes, each into the first lane free when it starts.
            var lanes: [[Int]] = []
            for (position, attempt) in mine.attempts.enumerated() {
                if let lane = lanes.firstIndex(where: {
                    mine.attempts[$0.last!].rendered! <= attempt.renderStarted! + Self.placementTolerance
                }) {
                    lanes[lane].append(position)
                } else {
                    lanes.append([position])
                }
            }
            for (number, lane) in lanes.enumerated() {
                slots.append(
                    slot(
                        worker: worker, lane: number, lane, of: mine, origin: origin, end: end, lastStart: lastStart,
                        lastSent: lastSent))
            }
        }
        return Summary(
            attemptsTraced: traced.count, phases: phases, slots: slots, lastRenderStart: at(lastStart),
            lastRenderEnd: at(traced.compactMap(\.rendered).max()), lastAccepted: at(lastAccepted),
            joinStarted: at(joinStarted), joined: at(joined), checked: at(checked), finished: at(finished),
            startup: traced.isEmpty ? nil : origin - submitted)
    }

    /// One worker's traced attempts by render start, with what answers "did it hold a task,
    /// not yet started, at this instant?" by a binary search instead of a pass.
    private struct WorkerRenders {
        let attempts: [Attempt]
        /// For each position, the earliest `received` of the attempts from there on.
        let earliestReceivedFrom: [Double]

        init(_ attempts: [Attempt]) {
            self.attempts = attempts.sorted { $0.renderStarted! < $1.renderStarted! }
            var earliest = [Double](repeating: .infinity, count: attempts.count + 1)
            for position in stride(from: attempts.count - 1, through: 0, by: -1) {
                earliest[position] = min(self.attempts[position].received!, earliest[position + 1])
            }
            earliestReceivedFrom = earliest
        }

        /// Whether an attempt other than the one at `position` was received by `instant` and
        /// started at or after it.
        func held(at instant: Double, besides position: Int) -> Bool {
            var low = 0
            var high = attempts.count
            while low < high {
                let middle = (low + high) / 2
                if attempts[middle].renderStarted! < instant { low = middle + 1 } else { high = middle }
            }
            // The attempt itself starts at `instant` only when its render took no time.
            guard low <= position else { return earliestReceivedFrom[low] <= instant }
            let others = attempts[low..<position].contains { $0.received! <= instant }
            return others || earliestReceivedFrom[position + 1] <= instant
        }
    }

    private func slot(
        worker: String, lane number: Int, _ lane: [Int], of mine: WorkerRenders, origin: Double, end: Double,
        lastStart: Double?, lastSent: Double?
    ) -> Slot {
        let renders = lane.map { mine.attempts[$0] }
        let rendering = renders.reduce(0) { $0 + ($1.rendered! - $1.renderStarted!) }
        var idleWhileQueued = 0.0
        var gaps = 0
        // Each gap after a render: idle while queued if a task was sent after the render ended
        // and this worker held nothing yet for the slot to start; counted until the slot's next
        // render or the job's last task sent, whichever came first (after that nothing waited).
        for (step, position) in lane.enumerated() {
            let gapStart = mine.attempts[position].rendered!
            let gapEnd = step + 1 < lane.count ? mine.attempts[lane[step + 1]].renderStarted! : end
            guard gapEnd > gapStart, let lastSent, lastSent > gapStart else { continue }
            if !mine.held(at: gapStart, besides: position) {
                idleWhileQueued += min(gapEnd, lastSent) - gapStart
                gaps += 1
            }
        }
        let busyWindow = (lastStart ?? end) - origin
        let busyBefore = renders.reduce(0.0) { sum, attempt in
            guard let lastStart else { return sum }
            return sum + max(0, min(attempt.rendered!, lastStart) - attempt.renderStarted!)
        }
        return Slot(
            worker: worker, lane: number,
            renders: renders.map {
                Render(name: $0.name, start: $0.renderStarted! - origin, end: $0.rendered! - origin)
            },
            rendering: rendering, idle: max(0, end - origin - rendering), idleWhileQueued: idleWhileQueued,
            idleWhileQueuedGaps: gaps, busyUntilLastStart: busyWindow > 0 ? min(1, busyBefore / busyWindow) : 1)
    }
}

extension JobTrace {
    /// What `farm trace --json` prints and `GET /api/jobs/:id/trace` answers: the instants and
    /// their reading.
    public struct Report: Codable, Sendable, Hashable {
        public var trace: JobTrace
        public var summary: Summary

        public init(_ trace: JobTrace) {
            self.trace = trace
            summary = trace.summary
        }
    }
}
