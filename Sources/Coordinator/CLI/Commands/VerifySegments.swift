import ArgumentParser
import FarmCore
import FarmMedia
import FarmRender
import Foundation

/// The coordinator's checks of uploaded segments, in a process of its own (`SegmentCheck`): a
/// file that crashes or hangs FFmpeg costs this process, which the coordinator starts again,
/// never the coordinator.
struct VerifySegments: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-segments",
        abstract: "Check uploaded segments for the coordinator (started by it).",
        discussion: """
            Reads one request per line on standard input (a JSON SegmentVerifier.Request) and \
            answers each with one line: `ok`, or `bad: REASON`. Ends at the end of its input.
            """,
        shouldDisplay: false
    )

    func run() throws {
        FFmpegLog.configure(verbose: false)
        let decoder = JSONDecoder()
        HelperProcess.serve { line in
            do {
                try decoder.decode(SegmentVerifier.Request.self, from: Data(line.utf8)).check()
                return "ok"
            } catch {
                // One line whatever the error says.
                let reason = String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
                return String(("bad: " + reason).prefix(600))
            }
        }
    }
}
