import Foundation

/// The pause between tries to reach something that went away (the database): a quarter of a
/// second at first, doubling to at most five, so a short outage is noticed quickly and a long
/// one is not hammered.
public struct Backoff {
    private var delay = 0.25

    public init() {}

    /// Sleeps for the current delay, then lengthens it.
    public mutating func pause() {
        Thread.sleep(forTimeInterval: delay)
        delay = min(delay * 2, 5)
    }
}
