import FarmCore
import FarmMedia
import Foundation
import Synchronization
import Testing

/// Encoders opened, fed and closed on many threads at once, as a worker's slots and a local
/// render's lanes do, including encoders closed without a drain (a chunk that failed) and
/// without a frame. SVT-AV1 keeps process-wide state: two opening at once crashed a render, and
/// one closed undrained or drained without a frame waited forever.
@Suite struct EncoderConcurrencyTests {
    @Test(arguments: ["av1", "h264", "hevc", "ffv1", "prores"])
    func encodersOpenFeedAndCloseOnManyThreadsAtOnce(codec: String) throws {
        let project = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/m")).parse(
            Array(
                """
                {"output": {"width": 64, "height": 64, "fps": "30"},
                 "export": {"container": "mkv", "video": {"codec": "\(codec)"}},
                 "assets": {"a": {"path": "a.mp4"}},
                 "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                """.utf8), file: "p.json")
        let failures = Mutex<[String]>([])
        let packets = Mutex(0)
        for _ in 0..<4 {
            DispatchQueue.concurrentPerform(iterations: 8) { lane in
                do {
                    let encoder = try MediaEncoder.video(
                        output: project.output, settings: project.export.video, threads: 1, globalHeader: true)
                    // Lanes 0-2: no frame; 3-5: frames, never drained; 6-7: frames and a drain.
                    guard lane >= 3 else { return }
                    let picture = Picture(width: 64, height: 64)
                    for pts in 0..<3 {
                        try encoder.encode(picture, pts: Int64(pts)) { _ in packets.withLock { $0 += 1 } }
                    }
                    if lane >= 6 { try encoder.drain { _ in packets.withLock { $0 += 1 } } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        // Every drained encoder gave back its three frames.
        #expect(packets.withLock { $0 } >= 4 * 2 * 3)
    }
}
