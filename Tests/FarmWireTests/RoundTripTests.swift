import FarmCore
import FarmWire
import Testing

/// Every message comes back from its frames as it was sent, in the frames `farm/1` names.
@Suite struct RoundTripTests {
    @Test func everyTypeHasASample() {
        #expect(Set(MessageSamples.every.map(MessageSamples.type(of:))) == MessageSamples.typeNames)
    }

    @Test(arguments: MessageSamples.every)
    func aMessageDecodesFromItsFramesAsItWasEncoded(_ message: WireMessage) throws {
        let frames = message.encoded()
        #expect(try WireMessage(frames: frames) == message)
        // The frames are the protocol's: its tag, the type's name, a JSON body, and for a piece
        // its bytes as they are.
        #expect(frames[0] == Array("farm/1".utf8))
        #expect(String(decoding: frames[1], as: UTF8.self) == MessageSamples.type(of: message))
        #expect(frames[2].first == UInt8(ascii: "{") && frames[2].last == UInt8(ascii: "}"))
        if case .piece(_, let payload) = message {
            #expect(frames.count == 4 && frames[3] == payload)
        } else {
            #expect(frames.count == 3)
        }
    }

    @Test func tenThousandRandomMessagesComeBackAsTheyWent() throws {
        var random = SeededGenerator(seed: 0xF4A7_0001)
        var types: Set<String> = []
        for index in 0..<10_000 {
            let message = MessageSamples.random(using: &random)
            types.insert(MessageSamples.type(of: message))
            let decoded = try WireMessage(frames: message.encoded())
            #expect(decoded == message, "case \(index)")
            if decoded != message { return }
        }
        #expect(types == MessageSamples.typeNames)
    }

    @Test func anotherProtocolVersionIsRefusedByName() {
        var frames = WireMessage.welcome.encoded()
        frames[0] = Array("farm/2".utf8)
        #expect {
            try WireMessage(frames: frames)
        } throws: { error in
            error is ProtocolMismatch && "\(error)" == #"peer speaks "farm/2", this farm speaks "farm/1""#
        }
    }

    /// A video chunk's `done` carries frames and their rate, an audio block's its samples; a
    /// worker from before samples had their own field sent them as `frames`, and is read so.
    @Test func whatAnAttemptMadeIsReadInItsItemsUnitFromOldAndNewWorkers() throws {
        let key = MessageSamples.key
        let video = ChunkDone(key: key, bytes: 1, sha256: "ab", made: .frames(30, fps: 12.5))
        let audio = ChunkDone(key: key, bytes: 1, sha256: "ab", made: .samples(480_256))
        #expect(video.made(by: .video) == .frames(30, fps: 12.5))
        #expect(audio.made(by: .audio) == .samples(480_256))
        let body = { (message: ChunkDone) in
            String(decoding: WireMessage.done(message).encoded()[2], as: UTF8.self)
        }
        #expect(!body(video).contains("samples"), "\(body(video))")
        #expect(body(audio).contains(#""samples":480256"#) && body(audio).contains(#""frames":0"#), "\(body(audio))")

        let older = #"{"key":{"chunk":5,"attempt":1},"bytes":1,"sha256":"ab","frames":480256,"fps":550743.9}"#
        let decoded = try WireMessage(frames: [Array("farm/1".utf8), Array("done".utf8), Array(older.utf8)])
        guard case .done(let done) = decoded else {
            Issue.record("decoded as \(decoded)")
            return
        }
        #expect(done.made(by: .audio) == .samples(480_256))
    }
}
