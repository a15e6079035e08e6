import FarmCore
import FarmWire
import Foundation
import Testing

/// A socket's wait for messages ends when its wakeup is woken (a verdict, a join's end, a stop),
/// without taking a message from the queue or leaving the wakeup raised.
@Suite struct LoopWakeupTests {
    @Test func aWokenWaitEndsWithoutAMessageLongBeforeItsTimeout() throws {
        let (router, _, _) = try SocketRoundTripTests.pair()
        let wakeup = try LoopWakeup()
        router.wakeup = wakeup
        let clock = ContinuousClock()
        let started = clock.now
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.05)
            wakeup.wake()
        }
        #expect(try router.receive(timeout: 120) == nil)
        // Not a speed check: a wakeup that did not work would wait the whole two minutes.
        #expect(clock.now - started < .seconds(60))
    }

    @Test func wakingTwiceEndsOneWaitAndAMessageStillArrivesWhole() throws {
        let (router, dealer, route) = try SocketRoundTripTests.pair()
        let wakeup = try LoopWakeup()
        router.wakeup = wakeup
        wakeup.wake()
        wakeup.wake()
        #expect(try router.receive(timeout: 120) == nil)
        try dealer.send(WireMessage.hello(MessageSamples.worker).encoded())
        // The wakeup was cleared: this wait ends with the message, not another early nil.
        let frames = try #require(try router.receive(timeout: 120))
        #expect(frames[0] == route)
        #expect(try WireMessage(frames: Array(frames.dropFirst())) == .hello(MessageSamples.worker))
    }

    @Test func aMessageAndAWakeupTogetherGiveTheMessage() throws {
        let (router, dealer, _) = try SocketRoundTripTests.pair()
        let wakeup = try LoopWakeup()
        router.wakeup = wakeup
        try dealer.send(WireMessage.coordinatorHeartbeat.encoded())
        wakeup.wake()
        // Both ready: the message is not dropped for the wakeup.
        var received: [[UInt8]]?
        for _ in 0..<2 where received == nil { received = try router.receive(timeout: 120) }
        let frames = try #require(received)
        #expect(try WireMessage(frames: Array(frames.dropFirst())) == .coordinatorHeartbeat)
    }
}
