/// The channels the farm notifies on: a fixed set, so no caller's text reaches a LISTEN.
public enum FarmChannel: String, Sendable, CaseIterable {
    /// Every change of a job (state, accepted chunk, progress); the payload is the job's id.
    case farm
}

/// Live views (`farm watch`, the dashboard's events) hear the farm change through LISTEN; the
/// store's connection stays its own, and they get its notices through here.
extension FarmStore {
    /// Subscribes this store to `channel`; `reconnect()` subscribes it again.
    public func listen(_ channel: FarmChannel) throws {
        try connection.listen(channel.rawValue)
    }

    /// Waits up to `timeout` for notices on the channels listened to and returns their payloads,
    /// oldest first; empty when none came. Notices that came meanwhile are returned at once.
    public func notifications(timeout: Duration) throws -> [String] {
        try connection.notifications(timeout: timeout / .seconds(1))
    }
}
