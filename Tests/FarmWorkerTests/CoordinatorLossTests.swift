import FarmCore
import FarmWire
import FarmWorker
import Testing

/// The worker connects once; ZeroMQ reconnects it whenever the coordinator comes back. What the
/// agent itself does about a lost coordinator: it keeps rendering and heartbeating, and after a
/// silence longer than three heartbeats says hello again with the first message it hears, so a
/// restarted coordinator learns who it is before anything else.
@Suite struct CoordinatorLossTests {
    @Test func aCoordinatorHeardEveryHeartbeatHearsOneHello() throws {
        let farm = try AgentHarness()
        try farm.start()
        for _ in 0..<10 {
            try farm.pass(.seconds(1))
            try farm.receive(.coordinatorHeartbeat)
        }
        #expect(farm.sent.filter(\.isHello).count == 1)
        #expect(farm.sent.compactMap(\.heartbeat).count >= 9)
    }

    @Test func afterASilenceTheFirstMessageHeardBringsHelloAgain() throws {
        let farm = try AgentHarness()
        try farm.start()
        // A silence of two heartbeats is not a loss.
        try farm.pass(.seconds(2))
        try farm.receive(.coordinatorHeartbeat)
        #expect(farm.sent.filter(\.isHello).count == 1)

        // Five: heartbeats go on into the silence, no hello, no new connection.
        var mark = farm.sent.count
        try farm.pass(.seconds(5))
        let silence = farm.sent(after: mark)
        #expect(silence.count >= 4 && silence.allSatisfy { $0.heartbeat != nil }, "\(silence.map(\.type))")
        // The first message heard after it (a heartbeat's answer) brings hello, before anything else.
        mark = farm.sent.count
        try farm.receive(.coordinatorHeartbeat)
        #expect(farm.sent(after: mark) == [farm.sent[0]])
        try farm.pass(.seconds(1))
        try farm.receive(.coordinatorHeartbeat)
        #expect(farm.sent.filter(\.isHello).count == 2)
        #expect(farm.coordinator.endpoints == [AgentHarness.endpoint])
    }

    @Test func aCoordinatorRestartedBeforeItsVerdictGetsHelloAndTheWholeResultAgain() throws {
        let farm = try AgentHarness()
        try farm.start()
        let assignment = AgentHarness.assignment(chunk: 1)
        let key = assignment.key
        try farm.receive(.assign(assignment))
        try farm.finishRenders()
        try farm.acknowledgeUpload(of: key, bytes: 2_500)
        let first = farm.sent.filter { $0.attempt == key }

        // The coordinator dies with the upload before its verdict, and is gone for five seconds.
        let mark = farm.sent.count
        try farm.pass(.seconds(5))
        let silence = farm.sent(after: mark)
        // Its heartbeats still hold the attempt as uploading; the upload starts over.
        #expect(silence.compactMap(\.heartbeat).allSatisfy { $0.running == [key] && $0.uploading == [key] })
        #expect(silence.filter { $0.attempt == key }.compactMap(\.piece).map(\.piece.offset) == [0])

        // Restarted, it answers the next heartbeat: hello first, then the upload as before.
        try farm.receive(.coordinatorHeartbeat)
        #expect(farm.sent.last?.isHello == true)
        try farm.acknowledgeUpload(of: key, bytes: 2_500)
        let since = farm.sent(after: mark).filter { $0.attempt == key }
        #expect(since == first)
        try farm.receive(.accepted(Verdict(key: key, reason: "verified")))
        #expect(farm.sent.last?.heartbeat?.running == [])
    }
}
