import FarmCore
import FarmWire
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one length field on the wire is ZeroMQ's own: each frame's size, in 8 bytes. A peer that
/// speaks ZMTP by hand and claims a frame of 2^62 bytes is disconnected by libzmq (the memory
/// cannot be had, and the claim is refused before a byte of the frame is read), and the socket
/// serves everyone else as before. The same peer's well-formed message arrives, so it is the
/// claim that is refused, not the hand-made handshake. A claim the machine could grant is
/// refused too, at the router's bound (`WireBounds.frameBytes`).
@Suite struct OversizedFrameTests {
    /// A ZMTP 3.0 greeting for the NULL mechanism.
    static let greeting: [UInt8] =
        [0xFF] + Array(repeating: 0, count: 8) + [0x7F, 3, 0] + Array("NULL".utf8) + Array(repeating: 0, count: 48)

    /// The READY command of a DEALER.
    static let ready: [UInt8] = {
        let body: [UInt8] =
            [5] + Array("READY".utf8) + [11] + Array("Socket-Type".utf8) + [0, 0, 0, 6] + Array("DEALER".utf8)
        return [0x04, UInt8(body.count)] + body
    }()

    /// `frames` as ZMTP writes them: a flag byte (0x01: more follows; 0x02: long size) and the size.
    static func zmtp(_ frames: [[UInt8]]) -> [UInt8] {
        frames.enumerated().flatMap { index, frame -> [UInt8] in
            let more: UInt8 = index < frames.count - 1 ? 0x01 : 0
            let size = UInt64(frame.count)
            let header = withUnsafeBytes(of: size.bigEndian) { [more | 0x02] + Array($0) }
            return header + frame
        }
    }

    /// A TCP connection to `router` that has sent `bytes` after the handshake. libzmq 4.3 dropped
    /// this peer when it did not wait for each answer, so it waits: its signature, the rest of its
    /// greeting, then READY.
    static func byHand(to router: MessageSocket, sending bytes: [UInt8]) throws -> Int32 {
        let port = try #require(UInt16(router.lastEndpoint.split(separator: ":").last ?? ""))
        let peer = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(peer >= 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(peer, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        var heard: [UInt8] = []
        func write(_ bytes: [UInt8]) {
            #expect(bytes.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, 0) } == bytes.count)
        }
        func read(atLeast count: Int) throws {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while heard.count < count {
                let got = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
                try #require(got > 0, "the router ended the handshake (errno \(errno))")
                heard += buffer[..<got]
            }
        }
        write(Array(greeting[..<10]))
        try read(atLeast: 10)
        write(Array(greeting[10...]))
        // Its greeting, then its READY: a short command, two bytes and the body.
        try read(atLeast: 66)
        try read(atLeast: 66 + Int(heard[65]))
        write(ready + bytes)
        return peer
    }

    /// Reads until the router ends the connection; false if it is still open after 10 s.
    static func awaitsEnd(of peer: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            return count == 0 || errno == ECONNRESET
        }
    }

    static func routerOnLoopback() throws -> MessageSocket {
        let router = try MessageSocket(.router)
        try router.bind("tcp://127.0.0.1:*")
        return router
    }

    @Test func aMessageWrittenByHandArrives() throws {
        let router = try Self.routerOnLoopback()
        let hello = WireMessage.hello(MessageSamples.worker)
        let peer = try Self.byHand(to: router, sending: Self.zmtp(hello.encoded()))
        defer { close(peer) }
        let frames = try #require(try router.receive(timeout: 10))
        #expect(try WireMessage(frames: Array(frames.dropFirst())) == hello)
    }

    @Test func aFrameClaimingTwoToTheSixtySecondBytesCostsOnlyItsSendersConnection() throws {
        let router = try Self.routerOnLoopback()
        let claim: [UInt8] = [0x02, 0x40, 0, 0, 0, 0, 0, 0, 0] + Array(repeating: 0x61, count: 64)
        let peer = try Self.byHand(to: router, sending: claim)
        defer { close(peer) }
        #expect(Self.awaitsEnd(of: peer), "the router kept the connection (errno \(errno))")
        // Nothing reached the application, and a real peer is served as before.
        #expect(try router.receive(timeout: 0.2) == nil)
        let dealer = try MessageSocket(.dealer)
        try dealer.connect(router.lastEndpoint)
        try dealer.send(WireMessage.hello(MessageSamples.worker).encoded())
        let frames = try #require(try router.receive(timeout: 10))
        #expect(try WireMessage(frames: Array(frames.dropFirst())) == .hello(MessageSamples.worker))
    }

    /// A claim the machine could grant (2 GiB, which Linux hands out on credit) but no worker
    /// sends: the router refuses it at `WireBounds.frameBytes` instead of reserving it and
    /// waiting for the bytes.
    @Test func aFrameClaimingTwoGigabytesIsRefusedAtTheBound() throws {
        let router = try Self.routerOnLoopback()
        let size = UInt64(2) << 30
        let claim =
            withUnsafeBytes(of: size.bigEndian) { [UInt8(0x02)] + Array($0) } + Array(repeating: 0x61, count: 64)
        let peer = try Self.byHand(to: router, sending: claim)
        defer { close(peer) }
        #expect(Self.awaitsEnd(of: peer), "the router kept the connection (errno \(errno))")
        #expect(try router.receive(timeout: 0.2) == nil)
    }

    /// A frame at the bound still arrives whole.
    @Test func aFrameAtTheBoundArrives() throws {
        let router = try Self.routerOnLoopback()
        let dealer = try MessageSocket(.dealer)
        try dealer.connect(router.lastEndpoint)
        let payload = [UInt8](repeating: 0x5A, count: Int(WireBounds.frameBytes))
        #expect(try dealer.send([payload]))
        let frames = try #require(try router.receive(timeout: 30))
        #expect(frames.count == 2 && frames[1].count == payload.count)
    }
}
