import FarmCore
import FarmWire
import FarmWorker
import Testing

/// What gets no answer is sent again after the patience (three heartbeats): a piece from where
/// the coordinator last acknowledged, and a `done` without a verdict by starting the upload
/// over, since a coordinator that restarted may have lost it.
@Suite struct UploadResendTests {
    @Test func aPieceWithoutAnAcknowledgementIsSentAgainAfterThePatience() throws {
        let farm = try AgentHarness()
        try farm.start()
        let key = AgentHarness.assignment(chunk: 1).key
        try farm.receive(.assign(AgentHarness.assignment(chunk: 1)))
        try farm.finishRenders()
        try farm.receive(.pieceAck(UploadAck(key: key, received: 1_000)))

        // Within the patience the piece at 1,000 goes once; after it, once more, the same.
        try farm.pass(.seconds(2))
        #expect(farm.sent.compactMap(\.piece).map(\.piece.offset) == [0, 1_000])
        try farm.pass(.seconds(2))
        let pieces = farm.sent.compactMap(\.piece)
        #expect(pieces.map(\.piece.offset) == [0, 1_000, 1_000])
        #expect(pieces[1].bytes == pieces[2].bytes)
        // The heartbeats meanwhile say the result is uploading, its slot free.
        #expect(farm.sent.compactMap(\.heartbeat).last.map { $0.uploading == [key] && $0.waiting == [] } == true)

        try farm.receive(.pieceAck(UploadAck(key: key, received: 2_000)))
        #expect(farm.sent.compactMap(\.piece).last?.piece.offset == 2_000)
    }

    @Test func aDoneWithoutAVerdictStartsTheUploadOverAfterThePatience() throws {
        let farm = try AgentHarness()
        try farm.start()
        let key = AgentHarness.assignment(chunk: 1).key
        try farm.receive(.assign(AgentHarness.assignment(chunk: 1)))
        try farm.finishRenders()
        try farm.acknowledgeUpload(of: key, bytes: 2_500)
        let done = try #require(farm.sent.last)
        #expect(done.type == "done")

        let mark = farm.sent.count
        try farm.pass(.seconds(2))
        #expect(!farm.sent(after: mark).contains { $0.attempt == key })
        try farm.pass(.seconds(2))
        #expect(farm.sent(after: mark).filter { $0.attempt == key }.compactMap(\.piece).map(\.piece.offset) == [0])

        // The whole file again, then the same `done`; the verdict ends it.
        try farm.acknowledgeUpload(of: key, bytes: 2_500)
        let again = farm.sent(after: mark).filter { $0.attempt == key }
        #expect(again.map(\.type) == ["piece", "piece", "piece", "done"])
        #expect(again.last == done)
        try farm.receive(.accepted(Verdict(key: key, reason: "verified")))
        try farm.pass(.seconds(5))
        #expect(farm.sent.filter { $0.attempt == key }.count == 8)
    }

    @Test func anAcknowledgementOfEverythingGoesStraightToDone() throws {
        // A coordinator that resumed an upload from its file may hold more than was acknowledged.
        let farm = try AgentHarness()
        try farm.start()
        let key = AgentHarness.assignment(chunk: 1).key
        try farm.receive(.assign(AgentHarness.assignment(chunk: 1)))
        try farm.finishRenders()
        try farm.receive(.pieceAck(UploadAck(key: key, received: 2_500)))
        #expect(farm.sent.filter { $0.attempt == key }.map(\.type) == ["piece", "done"])
    }
}
