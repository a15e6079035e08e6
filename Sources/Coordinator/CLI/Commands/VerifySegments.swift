import ArgumentParser
import FarmCore
import FarmRender

/// The coordinator's checks of uploaded segments, in a process of its own (`SegmentCheck`): a
/// file that crashes or hangs FFmpeg costs this process, which the coordinator starts again,
/// never the coordinator.
struct VerifySegments: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperCommand.verifySegments.rawValue,
        abstract: "Check uploaded segments for the coordinator (started by it).",
        discussion: """
            Reads one request per line on standard input (a JSON SegmentVerifier.Request) and \
            answers each with one line of JSON (a SegmentVerifier.Verdict): {"ok":true}, or \
            {"ok":false,"reason":"..."}. Ends at the end of its input.
            """,
        shouldDisplay: false
    )

    func run() throws { SegmentVerifier.serve() }
}
