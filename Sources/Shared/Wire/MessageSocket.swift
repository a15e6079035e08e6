import CZeroMQ
import FarmCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One ZeroMQ socket sending and receiving multipart messages (arrays of frames).
///
/// Not thread-safe, like every ZeroMQ socket: one thread owns it.
public final class MessageSocket {
    public enum Kind {
        /// The coordinator's side: many peers, each message prefixed with the peer's routing id.
        case router
        /// A worker's side: one coordinator, reconnected to automatically.
        case dealer
        /// Answers each request in turn (the key gate's side of ZAP).
        case reply

        var raw: Int32 {
            switch self {
            case .router: ZMQ_ROUTER
            case .dealer: ZMQ_DEALER
            case .reply: ZMQ_REP
            }
        }
    }

    /// One context for the process: the key gate's inproc endpoint is reachable only from
    /// sockets of the same context.
    static let context: UnsafeMutableRawPointer = zmq_ctx_new()
    let socket: UnsafeMutableRawPointer
    /// A router never waits on one peer: a peer that stops reading loses its own messages
    /// once its queue is full, and everyone else is still served. A dealer never waits on a
    /// coordinator it has no connection to (one whose handshake keeps failing leaves it none):
    /// the message is dropped and the worker's loop goes on (its heartbeats and uploads repeat
    /// what matters), where a blocking send once hung a refused worker past SIGTERM.
    private let sendFlags: Int32

    public init(_ kind: Kind, identity: String? = nil) throws {
        guard let socket = zmq_socket(Self.context, kind.raw) else { throw TransportError("create socket") }
        self.socket = socket
        sendFlags = kind == .reply ? 0 : ZMQ_DONTWAIT
        try set(ZMQ_LINGER, 0)
        if kind == .router {
            // Routes are the router's to give: workers connect without a routing id and get a
            // fresh one per connection. A peer that names one already in use is refused, never
            // handed that route (with handover, a rogue naming "w1" cut the real w1 off).
            try set(ZMQ_ROUTER_HANDOVER, 0)
            // Sending to a peer that is gone fails instead of vanishing silently.
            try set(ZMQ_ROUTER_MANDATORY, 1)
            var limit = WireBounds.frameBytes
            guard zmq_setsockopt(socket, ZMQ_MAXMSGSIZE, &limit, MemoryLayout<Int64>.size) == 0 else {
                throw TransportError("set the largest frame")
            }
        }
        if let identity {
            let bytes = Array(identity.utf8)
            guard zmq_setsockopt(socket, ZMQ_ROUTING_ID, bytes, bytes.count) == 0 else {
                throw TransportError("set id")
            }
        }
        // Reconnect quickly after a coordinator restart, or once one that a worker started
        // before (`farm render`'s own) binds, doubling the wait to a second while none answers.
        try set(ZMQ_RECONNECT_IVL, 10)
        try set(ZMQ_RECONNECT_IVL_MAX, 1000)
    }

    deinit {
        zmq_close(socket)
    }

    private func set(_ option: Int32, _ value: Int32) throws {
        var value = value
        guard zmq_setsockopt(socket, option, &value, MemoryLayout<Int32>.size) == 0 else {
            throw TransportError("set option \(option)")
        }
    }

    private func set(_ option: Int32, text: String) throws {
        let bytes = Array(text.utf8)
        guard zmq_setsockopt(socket, option, bytes, bytes.count) == 0 else {
            throw TransportError("set option \(option)")
        }
    }

    /// Serves CURVE with `keys`: every peer must hold a key pair, and the ZAP handler
    /// (`KeyGate`) decides which public keys are let in. Call before `bind`.
    public func serveCurve(_ keys: CurveKeys) throws {
        try set(ZMQ_CURVE_SERVER, 1)
        try set(ZMQ_CURVE_SECRETKEY, text: keys.secretKey)
        try set(ZMQ_ZAP_DOMAIN, text: "farm")
    }

    /// Connects with CURVE to a server whose public key is `server`. Call before `connect`.
    public func useCurve(_ keys: CurveKeys, server: String) throws {
        try set(ZMQ_CURVE_SERVERKEY, text: server)
        try set(ZMQ_CURVE_PUBLICKEY, text: keys.publicKey)
        try set(ZMQ_CURVE_SECRETKEY, text: keys.secretKey)
    }

    /// The name the key gate gave the sender of the message last received (its key's name),
    /// or nil on a socket without CURVE.
    public private(set) var lastSender: String?

    public func bind(_ endpoint: String) throws {
        guard zmq_bind(socket, endpoint) == 0 else { throw TransportError("bind \(endpoint)") }
    }

    public func connect(_ endpoint: String) throws {
        guard zmq_connect(socket, endpoint) == 0 else { throw TransportError("connect \(endpoint)") }
    }

    /// The endpoint actually bound (resolves a `*` port).
    public var lastEndpoint: String {
        var buffer = [CChar](repeating: 0, count: 256)
        var size = buffer.count
        zmq_getsockopt(socket, ZMQ_LAST_ENDPOINT, &buffer, &size)
        return String(cString: buffer)
    }

    /// Sends every frame as one message. Returns false when a router's peer is unknown, gone,
    /// or not reading (its queue is full: the message is dropped rather than waited on).
    @discardableResult
    public func send(_ frames: [[UInt8]]) throws -> Bool {
        for (index, frame) in frames.enumerated() {
            let flags = (index < frames.count - 1 ? ZMQ_SNDMORE : 0) | sendFlags
            let sent = frame.withUnsafeBytes { zmq_send(socket, $0.baseAddress, frame.count, flags) }
            if sent < 0 {
                let code = zmq_errno()
                // Only the first frame can be refused: the rest of a message follows it.
                if code == EHOSTUNREACH || code == EAGAIN { return false }
                throw TransportError("send")
            }
        }
        return true
    }

    /// Ends a `receive` wait early, without a message, when woken.
    public var wakeup: LoopWakeup?

    /// Waits up to `timeout` seconds for a message; nil when none came, or when `wakeup` was
    /// woken (and is cleared).
    public func receive(timeout: Double) throws -> [[UInt8]]? {
        var items = [zmq_pollitem_t(socket: socket, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)]
        if let wakeup {
            items.append(zmq_pollitem_t(socket: nil, fd: wakeup.descriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        }
        let ready = zmq_poll(&items, Int32(items.count), Int(max(0, timeout * 1000)))
        if ready < 0 {
            if zmq_errno() == EINTR { return nil }
            throw TransportError("poll")
        }
        if items.count > 1, items[1].revents != 0 { wakeup?.clear() }
        guard items[0].revents != 0 else { return nil }
        return try receiveReady()
    }

    private func receiveReady() throws -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var message = zmq_msg_t()
        var more = true
        lastSender = nil
        while more {
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            guard zmq_msg_recv(&message, socket, 0) >= 0 else { throw TransportError("receive") }
            // A router's own routing-id frame carries no metadata; the peer's frames do.
            if lastSender == nil, let sender = zmq_msg_gets(&message, "User-Id") {
                lastSender = String(cString: sender)
            }
            let size = zmq_msg_size(&message)
            if size > 0, let data = zmq_msg_data(&message) {
                frames.append(Array(UnsafeRawBufferPointer(start: data, count: size)))
            } else {
                frames.append([])
            }
            more = zmq_msg_more(&message) == 1
        }
        return frames
    }
}
