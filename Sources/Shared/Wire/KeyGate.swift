import CZeroMQ
import FarmCore
import Foundation

/// The ZAP handler (ZeroMQ RFC 27) that decides which CURVE keys may connect: those whose
/// `NAME.pub` is in the allowed folder, read again at each connection so a worker is admitted
/// or removed by adding or deleting its file. An admitted peer's messages carry the key's name
/// as their User-Id; a refused one never gets past the handshake.
///
/// It must run before the server socket binds: without a handler libzmq lets every key in.
public final class KeyGate {
    private let folder: URL
    private let socket: UnsafeMutableRawPointer
    private let stopFlag = Locked(false)
    private let stopped = DispatchSemaphore(value: 0)
    /// Called with each refusal's text (peer address and key), for the log.
    private let refused: @Sendable (String) -> Void

    public init(allowedKeys folder: URL, refused: @escaping @Sendable (String) -> Void) throws {
        self.folder = folder
        self.refused = refused
        _ = try CurveKeys.loadPublicKeys(in: folder)
        guard let socket = zmq_socket(MessageSocket.context, ZMQ_REP) else { throw TransportError("create socket") }
        self.socket = socket
        var linger: Int32 = 0
        zmq_setsockopt(socket, ZMQ_LINGER, &linger, MemoryLayout<Int32>.size)
        guard zmq_bind(socket, "inproc://zeromq.zap.01") == 0 else {
            zmq_close(socket)
            throw TransportError("bind the key gate")
        }
        let thread = Thread { [self] in
            serve()
            stopped.signal()
        }
        thread.start()
    }

    /// Stops the handler; the socket closes on its own thread.
    public func stop() {
        stopFlag.withLock { $0 = true }
        stopped.wait()
    }

    private func serve() {
        defer { zmq_close(socket) }
        while !stopFlag.current {
            var item = zmq_pollitem_t(socket: socket, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)
            guard zmq_poll(&item, 1, 100) > 0, let request = receive() else { continue }
            reply(to: request)
        }
    }

    /// Request frames: version, request id, domain, address, identity, mechanism, credentials.
    private func reply(to request: [[UInt8]]) {
        guard request.count >= 6 else { return }
        let requestID = request[1]
        let address = String(decoding: request[3], as: UTF8.self)
        let mechanism = String(decoding: request[5], as: UTF8.self)
        var name: String?
        if mechanism == "CURVE", request.count >= 7, request[6].count == 32 {
            let key = CurveKeys.encode(request[6])
            let allowed = (try? CurveKeys.loadPublicKeys(in: folder)) ?? [:]
            name = allowed.first { $0.value == key }?.key
            if name == nil { refused("refused a connection from \(address): key \(key) is not in \(folder.path)") }
        } else {
            refused("refused a connection from \(address): no CURVE key (\(mechanism))")
        }
        let status = name == nil ? "400" : "200"
        let text = name == nil ? "key not allowed" : "OK"
        send([Array("1.0".utf8), requestID, Array(status.utf8), Array(text.utf8), Array((name ?? "").utf8), []])
    }

    private func receive() -> [[UInt8]]? {
        var frames: [[UInt8]] = []
        var more = true
        while more {
            var message = zmq_msg_t()
            zmq_msg_init(&message)
            defer { zmq_msg_close(&message) }
            guard zmq_msg_recv(&message, socket, 0) >= 0 else { return nil }
            let size = zmq_msg_size(&message)
            frames.append(size > 0 ? Array(UnsafeRawBufferPointer(start: zmq_msg_data(&message), count: size)) : [])
            more = zmq_msg_more(&message) == 1
        }
        return frames
    }

    private func send(_ frames: [[UInt8]]) {
        for (index, frame) in frames.enumerated() {
            let flags = index < frames.count - 1 ? ZMQ_SNDMORE : 0
            _ = frame.withUnsafeBytes { zmq_send(socket, $0.baseAddress, frame.count, flags) }
        }
    }
}
