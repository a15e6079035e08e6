import FarmWire

/// What the coordinator's loop needs of its ROUTER socket: the `MessageSocket` on a farm, a
/// scripted set of workers in unit tests, so the loop's handling and ticks run without a
/// process or a port.
package protocol RouterSocket: AnyObject {
    /// Sends one message's frames, the route first; false when the peer is gone or not reading.
    func send(_ frames: [[UInt8]]) throws -> Bool
    /// Waits up to `timeout` seconds for a message, its route first; nil when none came.
    func receive(timeout: Double) throws -> [[UInt8]]?
    /// The key name the last message came with, on a farm with keys.
    var lastSender: String? { get }
}

extension MessageSocket: RouterSocket {}
