/// How one attempt at a chunk ended (`running` while it has not).
public enum AttemptOutcome: String, StoredState {
    case running, done, failed
    /// The worker went silent and its lease expired.
    case lost
    /// The job stopped, or a draining worker gave the chunk back before starting it.
    case cancelled
    /// No render: the segment cache held a segment with the chunk's key (`ChunkKeys`).
    case reused
}
