import ArgumentParser
import FarmCore
import FarmMedia

/// Probes media files for a `farm` command, in a process of its own (`IsolatedMediaProbe`): a
/// file that crashes or hangs FFmpeg costs this process, not the command.
struct ProbeMedia: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: HelperCommand.probeMedia.rawValue,
        abstract: "Probe media files for another farm command (started by it).",
        discussion: """
            Reads one file path per line on standard input (a JSON string) and answers each with one line of JSON: \
            the media's facts, or the operation that failed and FFmpeg's message.
            """,
        shouldDisplay: false
    )

    func run() throws { IsolatedMediaProbe.serve() }
}
