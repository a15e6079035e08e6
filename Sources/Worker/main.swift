import Foundation

// The distributed worker arrives with the coordinator; until then it explains itself.
let usage = """
    farm-worker: renders chunks assigned by a farm coordinator.

    USAGE: farm-worker --coordinator tcp://HOST:5555 [--media-root DIR] [--slots N] [--threads N]

    Distributed rendering is not available in this version: render with `farm render --local`.
    """
FileHandle.standardError.write(Data((usage + "\n").utf8))
exit(CommandLine.arguments.contains("--help") ? 0 : 64)
