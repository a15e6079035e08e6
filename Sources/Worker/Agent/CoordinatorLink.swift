import FarmWire

/// What the agent needs of its socket to the coordinator: the DEALER `MessageSocket` on a farm,
/// a scripted coordinator in unit tests. ZeroMQ reconnects by itself after a coordinator
/// restart, so the agent connects once and never again.
package protocol CoordinatorLink: AnyObject {
    func connect(_ endpoint: String) throws
    /// Sends one message's frames; false when it was dropped (no connection to send on).
    @discardableResult func send(_ frames: [[UInt8]]) throws -> Bool
    /// Waits up to `timeout` seconds for a message; nil when none came.
    func receive(timeout: Double) throws -> [[UInt8]]?
}

extension MessageSocket: CoordinatorLink {}
