import FarmCore
import FarmWire
import Foundation
import Testing

/// The decoder meets bytes from anyone who can reach the coordinator's port. Whatever it is fed,
/// it refuses or returns a message within `WireBounds` that encodes back to itself; it never
/// traps. Its bodies are JSON, which has no length or count field to trust: what a body can
/// make it allocate grows with the bytes that came, and the numbers that size work elsewhere
/// are bounded (`WireBoundsTests`). Seeded, so every run feeds the same cases.
@Suite struct DecoderFuzzTests {
    /// Fields of every body, so made-up JSON reaches past the first key.
    static let fields = [
        "worker", "id", "host", "cores", "slots", "version", "running", "waiting", "uploading", "key", "chunk",
        "attempt", "job", "kind", "index", "start", "end", "projectText", "projectFile", "mediaRoot", "mediaPins",
        "size", "stamp", "frames", "fps", "offset", "total", "received", "bytes", "sha256", "mediaBlocks", "asset",
        "path", "block", "copy", "thumbnail", "error", "fatal", "reason",
    ]
    static let numbers = [
        "0", "-1", "1", "4611686018427387904", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
        "1e400", "-0", "0.5", "1e-400", "2147483648", "1024", "1025",
    ]

    /// What every decoded message must satisfy: it encodes back to itself, and its numbers are
    /// within the bounds (checked here field by field, not by the decoder's own check).
    static func check(_ message: WireMessage, case index: Int) throws {
        let again = try WireMessage(frames: message.encoded())
        #expect(again == message, "case \(index)")
        #expect(withinBounds(message), "case \(index): \(message)")
    }

    static func withinBounds(_ message: WireMessage) -> Bool {
        func fits(_ worker: WorkerInfo) -> Bool {
            WireBounds.slots.contains(worker.slots) && WireBounds.cores.contains(worker.cores)
                && (worker.tags ?? []).allSatisfy { PoolTags.problem(in: $0) == nil }
        }
        func fits(_ log: [String]?) -> Bool {
            (log?.count ?? 0) <= AttemptLog.mostLines
                && (log ?? []).reduce(0) { $0 + $1.utf8.count } <= AttemptLog.mostBytes
        }
        switch message {
        case .hello(let worker): return fits(worker)
        case .heartbeat(let beat): return fits(beat.worker)
        case .assign(let assignment): return 0 <= assignment.work.start && assignment.work.start <= assignment.work.end
        case .piece(let piece, let bytes):
            return piece.offset >= 0 && piece.total >= piece.offset && Int64(bytes.count) <= piece.total - piece.offset
        case .pieceAck(let ack): return ack.received >= 0
        case .done(let done):
            return (done.mediaBlocks ?? []).allSatisfy { WireBounds.mediaBlocks.contains($0.block) } && fits(done.log)
        case .failed(let failed): return fits(failed.log)
        case .welcome, .coordinatorHeartbeat, .progress, .accepted, .rejected, .cancel, .refused: return true
        }
    }

    @Test func twentyThousandFramesOfRandomBytesAreRefusedOrDecodedWhole() throws {
        var random = SeededGenerator(seed: 0xF022_0001)
        let tag = Array(WireMessage.protocolTag.utf8)
        let types = Array(MessageSamples.typeNames)
        var decoded = 0
        for index in 0..<20_000 {
            var frames = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                MessageSamples.bytes(&random, upTo: 48)
            }
            // Most cases get past the tag and the type, so the bodies are what is tried.
            if frames.count >= 2, Int.random(in: 0..<4, using: &random) > 0 {
                frames[0] = tag
                frames[1] = Array(types.randomElement(using: &random)!.utf8)
            }
            if let message = try? WireMessage(frames: frames) {
                decoded += 1
                try Self.check(message, case: index)
            }
        }
        // Bodies of random bytes are not JSON: only the types without a body get through.
        #expect(decoded > 0)
    }

    @Test func twentyThousandMadeUpJSONBodiesAreRefusedOrDecodedWhole() throws {
        var random = SeededGenerator(seed: 0xF022_0002)
        let types = Array(MessageSamples.typeNames)
        var decoded = 0
        for index in 0..<20_000 {
            let body = Self.json(&random, depth: 0)
            var frames = [Array(WireMessage.protocolTag.utf8), Array(types.randomElement(using: &random)!.utf8), body]
            if Bool.random(using: &random) { frames.append(MessageSamples.bytes(&random, upTo: 16)) }
            if let message = try? WireMessage(frames: frames) {
                decoded += 1
                try Self.check(message, case: index)
            }
        }
        #expect(decoded > 0)
    }

    @Test func fiftyThousandMutationsOfRealMessagesAreRefusedOrDecodedWhole() throws {
        var random = SeededGenerator(seed: 0xF022_0003)
        let samples = MessageSamples.every.map { $0.encoded() }
        var (decoded, refused) = (0, 0)
        for index in 0..<50_000 {
            var frames = samples.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...4, using: &random) { Self.mutate(&frames, &random) }
            if let message = try? WireMessage(frames: frames) {
                decoded += 1
                try Self.check(message, case: index)
            } else {
                refused += 1
            }
        }
        // Both ways are taken: the mutations make real messages, not only noise.
        #expect(decoded > 1000 && refused > 1000, "decoded \(decoded), refused \(refused)")
    }

    @Test func deepNestingAndLongBodiesAreRefusedWithoutExhaustingTheStack() {
        let deep =
            Array(repeating: UInt8(ascii: "["), count: 100_000) + Array(repeating: UInt8(ascii: "]"), count: 100_000)
        let nestedObjects = Array(String(repeating: #"{"worker":"#, count: 50_000).utf8)
        let spaces = Array(repeating: UInt8(ascii: " "), count: 8 << 20)
        for body in [deep, nestedObjects, spaces] {
            for type in ["hello", "heartbeat", "assign", "done"] {
                #expect(throws: (any Error).self) {
                    try WireMessage(frames: [Array(WireMessage.protocolTag.utf8), Array(type.utf8), body])
                }
            }
        }
    }

    // MARK: Cases

    /// A JSON value made of the bodies' own fields and the numbers that matter at the edges.
    static func json(_ random: inout SeededGenerator, depth: Int) -> [UInt8] {
        let choice = depth > 3 ? Int.random(in: 0..<4, using: &random) : Int.random(in: 0..<7, using: &random)
        switch choice {
        case 0: return Array(numbers.randomElement(using: &random)!.utf8)
        case 1:
            // A string with its quotes and backslashes escaped, and its control characters left raw.
            let text = MessageSamples.text(&random).replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            return Array("\"\(text)\"".utf8)
        case 2: return Array(["true", "false", "null"].randomElement(using: &random)!.utf8)
        case 3: return Array(#""video""#.utf8)
        case 4:
            let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in json(&random, depth: depth + 1) }
            return Array("[".utf8) + Array(items.joined(separator: Array(",".utf8))) + Array("]".utf8)
        default:
            let members = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                Array("\"\(fields.randomElement(using: &random)!)\":".utf8) + json(&random, depth: depth + 1)
            }
            return Array("{".utf8) + Array(members.joined(separator: Array(",".utf8))) + Array("}".utf8)
        }
    }

    /// One change to a message's frames: a byte flipped, dropped or added, a number swapped for
    /// an edge, a frame cut, dropped or doubled.
    static func mutate(_ frames: inout [[UInt8]], _ random: inout SeededGenerator) {
        guard !frames.isEmpty else {
            frames.append(MessageSamples.bytes(&random, upTo: 8))
            return
        }
        let target = Int.random(in: 0..<frames.count, using: &random)
        var frame = frames[target]
        switch Int.random(in: 0..<8, using: &random) {
        case 0 where !frame.isEmpty:
            frame[Int.random(in: 0..<frame.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
        case 1 where !frame.isEmpty:
            frame.remove(at: Int.random(in: 0..<frame.count, using: &random))
        case 2:
            frame.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...frame.count, using: &random))
        case 3:
            // A number in the body becomes one at the edge of what 64 bits, 32 bits or the bounds hold.
            let digits = frame.indices.filter { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(frame[$0]) }
            guard let at = digits.randomElement(using: &random) else { break }
            var end = at
            while end < frame.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(frame[end]) { end += 1 }
            frame.replaceSubrange(at..<end, with: Array(numbers.randomElement(using: &random)!.utf8))
        case 4:
            frame.removeLast(Int.random(in: 0...frame.count, using: &random))
        case 5:
            frames.remove(at: target)
            return
        case 6:
            frames.insert(frame, at: target)
        default:
            frame = MessageSamples.bytes(&random, upTo: 32)
        }
        frames[target] = frame
    }
}
