import FarmCore
import FarmMedia
import FarmRender
import Foundation

// farm-bench: figures printed against a baseline run in the same invocation.
//   farm-bench PROJECT.json [FRAMES]          the compositor on one core against decoding alone
//   farm-bench --audio PROJECT.json [THREADS] the whole sound in audio blocks against mixing alone
//   farm-bench --loudness PROJECT.json [THREADS]
//                                             a loudness target's passes and limiter against none
//   farm-bench --scheduler [WORKERS [SLOTS [CHUNKS [SECONDS [RENDER_SECONDS]]]]]
//                                             a coordinator against simulated workers (SchedulerBench)
//   farm-bench --claims [UNTAKEABLE_JOBS]     claims past jobs no claimant may take, against none (ClaimBench)
//   farm-bench --keys PROJECT.json [CHUNK_FRAMES]
//                                             chunk keys against JSONEncoder-made ones (KeyBench)
//   farm-bench --dynamic-range PROJECT.json [FRAMES]
//                                             the compositor on PQ and HLG canvases against SDR
//   farm-bench --grade PROJECT.json LUT.cube [FRAMES]
//                                             the compositor with output grades against none (GradeBench)
//   farm-bench --qc MEDIA [ROUNDS]            the QC pass's sound, in spans on every core against one span (QCBench)
// (ops/bench.sh, ops/bench-scaling.sh and ops/bench-long.sh make the media and the comparisons.)

var arguments = Array(CommandLine.arguments.dropFirst())

/// Prints `usage` and exits 64.
func usage(_ text: String) -> Never {
    FileHandle.standardError.write(Data("usage: \(text)\n".utf8))
    exit(64)
}

/// Runs one benchmark and exits: 0 when it printed its figures, 1 with its error.
func runAndExit(_ benchmark: () throws -> Void) -> Never {
    do {
        try benchmark()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

if arguments.first == "--scheduler" {
    let numbers = arguments.dropFirst().map { Double($0) }
    // Every figure positive, but a render time may be 0 (as fast as served).
    let valid = numbers.enumerated().allSatisfy { index, value in value.map { index == 4 ? $0 >= 0 : $0 > 0 } ?? false }
    guard numbers.count <= 5, valid else {
        usage("farm-bench --scheduler [WORKERS [SLOTS [CHUNKS [SECONDS [RENDER_SECONDS]]]]]")
    }
    var options = SchedulerBench.Options()
    let given = numbers.map { $0! }
    if given.count > 0 { options.workers = Int(given[0]) }
    if given.count > 1 { options.slots = Int(given[1]) }
    if given.count > 2 { options.chunks = Int(given[2]) }
    if given.count > 3 { options.seconds = given[3] }
    if given.count > 4 { options.renderSeconds = given[4] }
    runAndExit {
        try SchedulerBench.run(options)
    }
}
if arguments.first == "--qc" {
    guard arguments.count == 2 || arguments.count == 3, let rounds = Int(arguments.count == 3 ? arguments[2] : "3"),
        rounds > 0
    else {
        usage("farm-bench --qc MEDIA [ROUNDS]")
    }
    runAndExit {
        try QCBench.run(URL(fileURLWithPath: arguments[1]), rounds: rounds)
    }
}
if arguments.first == "--claims" {
    guard arguments.count <= 2, let jobs = arguments.count == 2 ? Int(arguments[1]) : 200, jobs >= 0 else {
        usage("farm-bench --claims [UNTAKEABLE_JOBS]")
    }
    runAndExit {
        try ClaimBench.run(untakeable: jobs)
    }
}
if arguments.first == "--keys" {
    guard arguments.count == 2 || arguments.count == 3, let frames = Int64(arguments.count == 3 ? arguments[2] : "2"),
        frames > 0
    else {
        usage("farm-bench --keys PROJECT.json [CHUNK_FRAMES]")
    }
    runAndExit {
        try KeyBench.run(try ProjectLoader().load(file: arguments[1]).project, chunkFrames: frames)
    }
}
if arguments.first == "--grade" {
    guard arguments.count == 3 || arguments.count == 4, let frames = Int64(arguments.count == 4 ? arguments[3] : "60"),
        frames > 0
    else {
        usage("farm-bench --grade PROJECT.json LUT.cube [FRAMES]")
    }
    FFmpegLog.configure(verbose: false)
    runAndExit {
        try GradeBench.run(try ProjectLoader().load(file: arguments[1]), lut: arguments[2], frames: frames)
    }
}
let audio = arguments.first == "--audio"
if audio { arguments.removeFirst() }
let loudness = arguments.first == "--loudness"
if loudness { arguments.removeFirst() }
let dynamicRange = arguments.first == "--dynamic-range"
if dynamicRange { arguments.removeFirst() }
guard let file = arguments.first else {
    usage("farm-bench [--audio | --loudness | --dynamic-range] PROJECT.json [FRAMES | THREADS]")
}
FFmpegLog.configure(verbose: false)
runAndExit {
    let loaded = try ProjectLoader().load(file: file)
    let count = arguments.count > 1 ? Int(arguments[1]) : nil
    if audio {
        try AudioBench.run(loaded, threads: count ?? ProcessInfo.processInfo.activeProcessorCount)
    } else if loudness {
        try LoudnessBench.run(loaded, threads: count ?? ProcessInfo.processInfo.activeProcessorCount)
    } else if dynamicRange {
        try DynamicRangeBench.run(loaded, frames: Int64(count ?? 120))
    } else {
        try CompositorBench.run(loaded, frames: Int64(count ?? 300))
    }
}
