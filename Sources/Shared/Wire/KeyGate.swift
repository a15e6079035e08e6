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
    private let socket: MessageSocket
    private let stopFlag = StopFlag()
    private let stopped = DispatchSemaphore(value: 0)
    /// Ends the thread's wait at `stop()`, so a coordinator's exit does not wait out its timeout.
    private let wakeup: LoopWakeup
    /// Called with each refusal's text (peer address and key), for the log.
    private let refused: @Sendable (String) -> Void

    public init(allowedKeys folder: URL, refused: @escaping @Sendable (String) -> Void) throws {
        self.folder = folder
        self.refused = refused
        _ = try CurveKeys.loadPublicKeys(in: folder)
        socket = try MessageSocket(.reply)
        try socket.bind("inproc://zeromq.zap.01")
        wakeup = try LoopWakeup()
        socket.wakeup = wakeup
        // The socket moves to the gate's thread here and is used by no other until `stop()`.
        let thread = Thread { [self] in
            while !stopFlag.isRaised {
                guard let request = try? socket.receive(timeout: 1) else { continue }
                _ = try? socket.send(answer(to: request))
            }
            stopped.signal()
        }
        thread.start()
    }

    /// Stops the handler's thread.
    public func stop() {
        stopFlag.raise()
        wakeup.wake()
        stopped.wait()
    }

    /// Request frames: version, request id, domain, address, identity, mechanism, credentials.
    /// The answer: version, request id, status, its text, the user id (the key's name), metadata.
    private func answer(to request: [[UInt8]]) -> [[UInt8]] {
        guard request.count >= 6 else { return [Array("1.0".utf8), [], Array("500".utf8), [], [], []] }
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
        let (status, text) = name == nil ? ("400", "key not allowed") : ("200", "OK")
        return [Array("1.0".utf8), request[1], Array(status.utf8), Array(text.utf8), Array((name ?? "").utf8), []]
    }
}
