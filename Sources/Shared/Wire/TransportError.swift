import CZeroMQ

/// A failed ZeroMQ call with libzmq's errno and words, or a message that is not the farm's.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// `zmq_errno()` read right after the failed call; nil for a malformed message.
    public let code: Int32?
    public let message: String

    init(_ operation: String) {
        let code = zmq_errno()
        self.code = code
        message = "\(operation): \(String(cString: zmq_strerror(code)))"
    }

    public init(message: String) {
        code = nil
        self.message = message
    }

    public var description: String { message }
}
