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

    /// How far two renders of one slot may seem to overlap: each is placed back from when its
    /// own upload ended, so each carries its own message's latency.
    static let placementTolerance = 0.05

    /// Reads the instants as phases and slots; times in seconds from the first assignment.
    public var summary: Summary {
        let traced = attempts.filter { $0.phases != nil }
        let origin = traced.compactMap(\.sent).min() ?? submitted
        let at = { (instant: Double?) in instant.map { $0 - origin } }
        let phases = traced.compactMap(\.phases).reduce(Phases.zero, +)
        let lastAccepted = traced.compactMap(\.accepted).max()
        let end = lastAccepted ?? origin
        let lastStart = traced.compactMap(\.renderStarted).max()
        // At a render's end, a task sent later was still queued (sent is the claim's answer).
        let claims = attempts.compactMap(\.sent)
        var slots: [Slot] = []
        for worker in Set(traced.map(\.worker)).sorted() {
            let mine = traced.filter { $0.worker == worker }.sorted { $0.renderStarted! < $1.renderStarted! }
            // Renders into lanes, each into the first lane free when it starts.
            var lanes: [[Attempt]] = []
            for attempt in mine {
                if let lane = lanes.firstIndex(where: {
                    $0.last!.rendered! <= attempt.renderStarted! + Self.placementTolerance
                }) {
                    lanes[lane].append(attempt)
                } else {
                    lanes.append([attempt])
                }
            }
            for (number, lane) in lanes.enumerated() {
                slots.append(
                    slot(
                        worker: worker, lane: number, lane, mine: mine, origin: origin, end: end, lastStart: lastStart,
                        claims: claims))
            }
        }
        return Summary(
            attemptsTraced: traced.count, phases: phases, slots: slots, lastRenderStart: at(lastStart),
            lastRenderEnd: at(traced.compactMap(\.rendered).max()), lastAccepted: at(lastAccepted),
            joinStarted: at(joinStarted), joined: at(joined), checked: at(checked), finished: at(finished),
            startup: traced.isEmpty ? nil : origin - submitted)
    }

    private func slot(
        worker: String, lane number: Int, _ lane: [Attempt], mine: [Attempt], origin: Double, end: Double,
        lastStart: Double?, claims: [Double]
    ) -> Slot {
        let rendering = lane.reduce(0) { $0 + ($1.rendered! - $1.renderStarted!) }
        var idleWhileQueued = 0.0
        var gaps = 0
        // Each gap after a render: idle while queued if a task was claimed after the render
        // ended and this worker held nothing yet for the slot to start.
        for (position, attempt) in lane.enumerated() {
            let gapStart = attempt.rendered!
            let gapEnd = position + 1 < lane.count ? lane[position + 1].renderStarted! : end
            guard gapEnd > gapStart, claims.contains(where: { $0 > gapStart }) else { continue }
            let held = mine.contains { other in
                other.received! <= gapStart && other.renderStarted! >= gapStart && other != attempt
            }
            if !held {
                idleWhileQueued += gapEnd - gapStart
                gaps += 1
            }
        }
        let firstStart = origin
        let busyWindow = (lastStart ?? end) - firstStart
        let busyBefore = lane.reduce(0.0) { sum, attempt in
            guard let lastStart else { return sum }
            return sum + max(0, min(attempt.rendered!, lastStart) - attempt.renderStarted!)
        }
        return Slot(
            worker: worker, lane: number,
            renders: lane.map { Render(name: $0.name, start: $0.renderStarted! - origin, end: $0.rendered! - origin) },
            rendering: rendering, idle: max(0, end - origin - rendering), idleWhileQueued: idleWhileQueued,
            idleWhileQueuedGaps: gaps, busyUntilLastStart: busyWindow > 0 ? min(1, busyBefore / busyWindow) : 1)
    }
}
