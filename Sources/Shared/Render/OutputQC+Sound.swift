import FarmCore
import FarmMedia
import Foundation

/// The QC pass's sound: the output decoded and measured for loudness, range, peaks and
/// silences, in spans of `spanSeconds` or more (at most `maximumSpans` of them) measured at
/// once on every core. The QC runs after the last chunk, on the coordinator, while the
/// workers' cores are idle: a 2-hour programme's sound takes 30 s on one core of this kind of
/// machine, most of the farm's serial tail.
///
/// Each span decodes from `warmUpSeconds` before its start, so its K-weighting filters and the
/// true-peak interpolator hold what a measurement from the start would hold there (the
/// filters' state decays to nothing long before), and counts only its own samples. Steps of
/// 100 ms, peaks and silences then join: the spans are on the loudness grid, the true peak is
/// a maximum, and a silence across a seam is one run. Span bounds follow from the programme
/// alone, never the core count, so the report is the same on every machine. It equals one
/// measurement from the start for PCM; for AAC within 0.001 dB (FFmpeg's AAC decoder draws the
/// noise of noise-substituted bands from a generator that runs from where decoding began).
extension OutputQC {
    public static let spanSeconds: Int64 = 10
    /// At most this many spans, each longer for a long programme: a span opens the file again,
    /// and a 2-hour MP4's index takes tens of milliseconds to read.
    static let maximumSpans: Int64 = 32
    static let warmUpSeconds = Rational(1, 2)

    /// What one span measured; silences are every quiet run, of any length, in samples.
    private struct SpanMeasure {
        var energies: [Double] = []
        var truePeak = 0.0
        var samplePeak: Float = 0
        var quiet: [Range<Int64>] = []
    }

    /// `exhaustive` computes every oversampled value (the benchmark's and tests' baseline);
    /// otherwise only those that could raise the true peak.
    static func sound(
        _ url: URL, codec: String, sampleRate: Int, channels: Int, samples: Int64, exhaustive: Bool = false,
        spanSeconds: Int64 = spanSeconds, lowered: Bool = false
    ) throws -> QCReport.Audio {
        let layoutChannels = channels == 6 ? 6 : min(channels, 2)
        let loaded = try soundProject(url, sampleRate: sampleRate, channels: layoutChannels, samples: samples)
        let grid = LoudnessGrid(sampleRate: sampleRate)
        let steps = Int64(grid.wholeSteps(in: samples)) + 1
        let spanSteps = max(spanSeconds * 10, (steps + maximumSpans - 1) / maximumSpans)
        var bounds: [Int64] = []
        while bounds.isEmpty || bounds.last! < samples {
            bounds.append(grid.start(ofStep: Int64(bounds.count) * spanSteps))
        }
        bounds[bounds.count - 1] = samples
        let spans = zip(bounds, bounds.dropFirst()).map { $0..<$1 }
        let measured = Locked([Int: Result<SpanMeasure, Error>]())
        func measureSpan(_ index: Int) {
            let result = Result {
                try measure(
                    loaded, span: spans[index], sampleRate: sampleRate, channels: layoutChannels,
                    last: index == spans.count - 1, exhaustive: exhaustive)
            }
            measured.withLock { $0[index] = result }
        }
        // The spans are the same either way: only the threads that measure them differ.
        if lowered {
            // Threads of its own at nice 10: what the renders leave while they run, every core
            // once they end.
            try TaskPool.run(spans.count, threads: ProcessInfo.processInfo.activeProcessorCount) { index in
                ThreadPriority.lower()
                measureSpan(index)
            }
        } else {
            DispatchQueue.concurrentPerform(iterations: spans.count, execute: measureSpan)
        }
        var whole = SpanMeasure()
        for index in spans.indices {
            let span = try measured.withLock { $0[index]! }.get()
            whole.energies += span.energies
            whole.truePeak = max(whole.truePeak, span.truePeak)
            whole.samplePeak = max(whole.samplePeak, span.samplePeak)
            for run in span.quiet {
                if let last = whole.quiet.last, last.upperBound == run.lowerBound {
                    whole.quiet[whole.quiet.count - 1] = last.lowerBound..<run.upperBound
                } else {
                    whole.quiet.append(run)
                }
            }
        }
        let rate = Double(sampleRate)
        let silences = whole.quiet.filter { Double($0.count) / rate >= QCReport.silenceMinimum }.map {
            QCReport.Run(start: Double($0.lowerBound) / rate, end: Double($0.upperBound) / rate)
        }
        let programme = ProgrammeLoudness(steps: whole.energies, samples: samples, sampleRate: sampleRate)
        return QCReport.Audio(
            codec: codec, sampleRate: sampleRate, channels: channels, samples: samples,
            integrated: programme.integrated, loudnessRange: programme.range,
            truePeak: whole.truePeak > 0 ? TruePeakMeter.decibels(whole.truePeak) : nil,
            samplePeak: whole.samplePeak > 0 ? TruePeakMeter.decibels(Double(whole.samplePeak)) : nil,
            silences: silences)
    }

    /// The output as a project of one audio item, read by the farm's own mixer.
    private static func soundProject(_ url: URL, sampleRate: Int, channels: Int, samples: Int64) throws
        -> LoadedProject
    {
        let path = String(decoding: try JSONEncoder().encode(url.path), as: UTF8.self)
        let layout = "{\"sampleRate\": \(sampleRate), \"channels\": \(channels)}"
        // The samples counted from the packets' timestamps may end a microsecond past the duration
        // the container states (an HLS playlist's, summed from its rounded segment durations):
        // silence, never a refusal, follows.
        let item =
            "{\"asset\": \"out\", \"at\": \"0\", \"duration\": \"\(samples)/\(sampleRate)\", \"pastEnd\": \"black\"}"
        let text = """
            {"output": {"width": 16, "height": 16, "fps": "25", "audio": \(layout)},
             "assets": {"out": {"path": \(path)}}, "tracks": [{"kind": "audio", "items": [\(item)]}]}
            """
        let loader = ProjectLoader(mediaRoot: url.deletingLastPathComponent())
        let project = try loader.parse(text: text, file: url.path + ".qc.json")
        return try loader.check(project, file: url.path + ".qc.json")
    }

    /// One span's figures, read from `warmUpSeconds` before it.
    private static func measure(
        _ loaded: LoadedProject, span: Range<Int64>, sampleRate: Int, channels: Int, last: Bool, exhaustive: Bool
    ) throws -> SpanMeasure {
        let first = max(0, span.lowerBound - (warmUpSeconds * Rational(Int64(sampleRate))).rounded)
        let mixer = AudioMixer(loaded: loaded)
        var meter = LoudnessMeter(
            channels: channels, sampleRate: sampleRate, position: first, countFrom: span.lowerBound)
        var peaks = [TruePeakMeter](repeating: TruePeakMeter(), count: channels)
        var result = SpanMeasure()
        let quiet = Float(pow(10, QCReport.silenceThreshold / 20))
        var quietSince: Int64? = span.lowerBound
        var next = first
        while next < span.upperBound {
            let count = Int(min(4096, span.upperBound - next))
            let block = try mixer.mix(from: next, count: count)
            meter.add(count: count) { block[$0, $1] }
            for i in 0..<count {
                let n = next + Int64(i)
                var loudest: Float = 0
                for channel in 0..<channels {
                    let x = block[channel, i]
                    loudest = max(loudest, abs(x))
                    let peak = exhaustive ? peaks[channel].push(x) : peaks[channel].push(x, over: result.truePeak)
                    // Before the span the interpolator only fills; from its start its values
                    // include the last few samples before it, already measured: a maximum
                    // does not mind.
                    if n >= span.lowerBound { result.truePeak = max(result.truePeak, peak) }
                }
                guard n >= span.lowerBound else { continue }
                result.samplePeak = max(result.samplePeak, loudest)
                if loudest > quiet {
                    if let since = quietSince { result.quiet.append(since..<n) }
                    quietSince = nil
                } else if quietSince == nil {
                    quietSince = n
                }
            }
            next += Int64(count)
        }
        if let since = quietSince { result.quiet.append(since..<span.upperBound) }
        // The last oversampled values, past the programme's last sample.
        if last {
            for channel in 0..<channels {
                for _ in 0..<TruePeakMeter.delay { result.truePeak = max(result.truePeak, peaks[channel].push(0)) }
            }
        }
        result.energies = meter.energies
        return result
    }
}
