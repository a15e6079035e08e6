/// Where a job is in its life: queued until a chunk is claimed, running while chunks render,
/// joining while its file is written, then done, failed or cancelled for good.
public enum JobState: String, StoredState {
    case queued, running, joining, done, failed, cancelled

    /// Done, failed or cancelled: nothing more happens unless an operator retries it.
    public var isFinished: Bool { self == .done || self == .failed || self == .cancelled }

    /// Queued or running: its chunks may be claimed.
    public var isClaimable: Bool { self == .queued || self == .running }
}
