import FarmCore
import FarmWire
import Foundation
import Testing

/// Real ZeroMQ sockets in one process (`inproc://`): a worker's DEALER and a coordinator's
/// ROUTER pass every message both ways, frames intact, the router naming the peer's route.
@Suite struct SocketRoundTripTests {
    /// A connected pair on an endpoint of its own; the router has heard the dealer once, so it
    /// knows the dealer's route.
    static func pair() throws -> (router: MessageSocket, dealer: MessageSocket, route: [UInt8]) {
        let endpoint = "inproc://wire-tests-\(UUID().uuidString)"
        let router = try MessageSocket(.router)
        try router.bind(endpoint)
        let dealer = try MessageSocket(.dealer)
        try dealer.connect(endpoint)
        try dealer.send(WireMessage.hello(MessageSamples.worker).encoded())
        let first = try #require(try router.receive(timeout: 10))
        #expect(try WireMessage(frames: Array(first.dropFirst())) == .hello(MessageSamples.worker))
        return (router, dealer, first[0])
    }

    @Test func everyMessageCrossesFromWorkerToCoordinatorAndBack() throws {
        let (router, dealer, route) = try Self.pair()
        for message in MessageSamples.every {
            #expect(try dealer.send(message.encoded()))
            let frames = try #require(try router.receive(timeout: 10))
            #expect(frames[0] == route)
            #expect(try WireMessage(frames: Array(frames.dropFirst())) == message)

            #expect(try router.send([route] + message.encoded()))
            let back = try #require(try dealer.receive(timeout: 10))
            #expect(try WireMessage(frames: back) == message)
        }
    }

    @Test func aFourMegabytePieceArrivesByteForByte() throws {
        let (router, dealer, _) = try Self.pair()
        var random = SeededGenerator(seed: 0x50C4_0001)
        let payload = (0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let piece = WireMessage.piece(
            UploadPiece(key: MessageSamples.key, offset: 0, total: Int64(payload.count)), payload)
        #expect(try dealer.send(piece.encoded()))
        let frames = try #require(try router.receive(timeout: 10))
        #expect(try WireMessage(frames: Array(frames.dropFirst())) == piece)
    }

    @Test func aRouterSendingToARouteNoPeerHoldsIsToldSoAndNothingIsDelivered() throws {
        let (router, dealer, route) = try Self.pair()
        #expect(try !router.send([Array("no-such-peer".utf8)] + WireMessage.welcome.encoded()))
        #expect(try router.send([route] + WireMessage.coordinatorHeartbeat.encoded()))
        let frames = try #require(try dealer.receive(timeout: 10))
        #expect(try WireMessage(frames: frames) == .coordinatorHeartbeat)
    }
}
