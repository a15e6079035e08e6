import FarmWire
import Logging

/// Sends messages to workers through the coordinator's ROUTER socket. Owned by the loop's
/// thread, like the socket.
final class Outbox {
    private let socket: any RouterSocket
    private let logger: Logger

    init(socket: any RouterSocket, logger: Logger) {
        self.socket = socket
        self.logger = logger
    }

    /// Sends `message` to the worker behind `route`; a worker that is gone or not reading is
    /// only logged (it repeats what matters: heartbeats, stalled pieces).
    func send(_ message: WireMessage, to route: [UInt8]) {
        do {
            if try !socket.send([route] + message.encoded()) {
                logger.debug("worker \(String(decoding: route, as: UTF8.self)) is unreachable or not reading")
            }
        } catch {
            logger.error("send failed: \(error)")
        }
    }
}
