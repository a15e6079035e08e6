import FarmCore
import FarmWire
import Testing

/// Numbers that size work or feed arithmetic on the other side are refused by the decoder, with
/// the field named: a peer cannot make a coordinator or a worker allocate, loop or overflow.
@Suite struct WireBoundsTests {
    static let key = MessageSamples.key
    static let huge: Int64 = 1 << 62

    /// The message's frames with `field` in its JSON body set to `value` as written.
    static func frames(_ message: WireMessage, setting field: String, to value: String) -> [[UInt8]] {
        var frames = message.encoded()
        let json = String(decoding: frames[2], as: UTF8.self)
        let pattern = #""\#(field)":"#
        guard let start = json.range(of: pattern) else { return frames }
        let rest = json[start.upperBound...]
        let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
        frames[2] = Array((json[..<start.upperBound] + value + json[end...]).utf8)
        return frames
    }

    static func refusal(_ frames: [[UInt8]]) -> String? {
        do {
            _ = try WireMessage(frames: frames)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: ["4611686018427387904", "2147483648", "1025", "-1"])
    func aWorkerClaimingSlotsOutOfBoundsIsRefusedInHelloAndHeartbeat(_ slots: String) {
        let worker = MessageSamples.worker
        let hello = Self.frames(.hello(worker), setting: "slots", to: slots)
        #expect(Self.refusal(hello) == "hello: slots \(slots) is outside 0...1024")
        let beat = WireMessage.heartbeat(Heartbeat(worker: worker, running: [], waiting: [], uploading: []))
        #expect(
            Self.refusal(Self.frames(beat, setting: "slots", to: slots))
                == "heartbeat: slots \(slots) is outside 0...1024")
    }

    @Test func theMostSlotsAndCoresAllowedPass() throws {
        var worker = MessageSamples.worker
        worker.slots = 1024
        worker.cores = Int(Int32.max)
        #expect(try WireMessage(frames: WireMessage.hello(worker).encoded()) == .hello(worker))
        let more = Self.frames(.hello(worker), setting: "cores", to: "2147483648")
        #expect(Self.refusal(more) == "hello: cores 2147483648 is outside 0...2147483647")
    }

    @Test func aPieceThatDoesNotFitItsTotalIsRefused() {
        let payload: [UInt8] = [1, 2, 3]
        let cases: [(UploadPiece, String)] = [
            (UploadPiece(key: Self.key, offset: .max, total: .max), "offset 9223372036854775807"),
            (UploadPiece(key: Self.key, offset: -1, total: 10), "offset -1"),
            (UploadPiece(key: Self.key, offset: 8, total: 10), "offset 8"),
            (UploadPiece(key: Self.key, offset: 0, total: -3), "offset 0"),
        ]
        for (piece, offset) in cases {
            let refusal = Self.refusal(WireMessage.piece(piece, payload).encoded())
            #expect(refusal == "piece: a piece of 3 bytes at \(offset) does not fit in \(piece.total) bytes")
        }
        let last = WireMessage.piece(UploadPiece(key: Self.key, offset: 7, total: 10), payload)
        #expect(Self.refusal(last.encoded()) == nil)
    }

    @Test func anAcknowledgementOfLessThanNothingIsRefused() {
        let ack = WireMessage.pieceAck(UploadAck(key: Self.key, received: -1))
        #expect(Self.refusal(ack.encoded()) == "piece-ack: received -1 bytes")
        #expect(Self.refusal(WireMessage.pieceAck(UploadAck(key: Self.key, received: 0)).encoded()) == nil)
    }

    @Test func anAssignmentWhoseSpanIsNoRangeIsRefused() {
        func refusal(_ work: WorkItem) -> String? {
            Self.refusal(
                WireMessage.assign(
                    Assignment(
                        key: Self.key, job: 7, work: work, projectText: "{}", projectFile: "/p.json", mediaRoot: "/",
                        mediaPins: [:])
                ).encoded())
        }
        #expect(
            refusal(.video(Chunk(index: 3, start: -1, end: .max)))
                == "assign: chunk 3 spans [-1, 9223372036854775807), not a range from 0 on")
        #expect(
            refusal(.video(Chunk(index: 3, start: 30, end: 29)))
                == "assign: chunk 3 spans [30, 29), not a range from 0 on")
        #expect(
            refusal(.audio(AudioBlock(index: 2, start: 960_512, end: 0)))
                == "assign: audio block 2 spans [960512, 0), not a range from 0 on")
        #expect(refusal(.video(Chunk(index: 3, start: 30, end: 30))) == nil)
    }

    @Test func aMediaBlockPastAnyFileIsRefused() {
        let blocks = [
            MessageSamples.block,
            MediaReads.Block(asset: "a", path: "/a", version: "v", block: Self.huge, sha256: "00"),
        ]
        let done = WireMessage.done(
            ChunkDone(key: Self.key, bytes: 1, sha256: "00", made: .frames(1, fps: 1), mediaBlocks: blocks))
        #expect(Self.refusal(done.encoded()) == "done: media block 4611686018427387904 is outside 0...2199023255551")
        let last = MediaReads.Block(
            asset: "a", path: "/a", version: "v", block: WireBounds.mediaBlocks.upperBound, sha256: "00")
        let largest = WireMessage.done(
            ChunkDone(key: Self.key, bytes: 1, sha256: "00", made: .frames(1, fps: 1), mediaBlocks: [last]))
        #expect(Self.refusal(largest.encoded()) == nil)
        // The largest index's offset still fits in 64 bits.
        #expect(
            !WireBounds.mediaBlocks.upperBound.multipliedReportingOverflow(by: Int64(MediaReads.blockSize)).overflow)
    }

    @Test func aNumberPastSixtyFourBitsIsAMalformedBodyNotACrash() {
        for value in ["18446744073709551616", "1e400", "-9223372036854775809", "1.5", "\"3\"", "null"] {
            let frames = Self.frames(.pieceAck(UploadAck(key: Self.key, received: 1)), setting: "received", to: value)
            #expect(Self.refusal(frames) != nil, "\(value)")
        }
    }
}
