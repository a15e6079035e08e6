import FarmCore
import FarmMedia
import FarmRender
import Foundation

// farm-bench: figures printed against a baseline run in the same invocation.
//   farm-bench PROJECT.json [FRAMES]          the compositor on one core against decoding alone
//   farm-bench --audio PROJECT.json [THREADS] the whole sound in audio blocks against mixing alone
// (ops/bench.sh, ops/bench-scaling.sh and ops/bench-long.sh make the media and the comparisons.)

var arguments = Array(CommandLine.arguments.dropFirst())
let audio = arguments.first == "--audio"
if audio { arguments.removeFirst() }
guard let file = arguments.first else {
    FileHandle.standardError.write(Data("usage: farm-bench [--audio] PROJECT.json [FRAMES | THREADS]\n".utf8))
    exit(64)
}
FFmpegLog.configure(verbose: false)
do {
    let loaded = try ProjectLoader().load(file: file)
    let count = arguments.count > 1 ? Int(arguments[1]) : nil
    if audio {
        try AudioBench.run(loaded, threads: count ?? ProcessInfo.processInfo.activeProcessorCount)
    } else {
        try CompositorBench.run(loaded, frames: Int64(count ?? 300))
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
