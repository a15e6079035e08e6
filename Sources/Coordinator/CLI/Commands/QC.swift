import ArgumentParser
import FarmCore
import FarmStore
import Foundation

struct QC: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qc",
        abstract: "What a finished job's output holds: streams, loudness, peaks, silences, seams, target.",
        discussion: """
            Measured by the coordinator from the output file once it is joined: its streams' \
            parameters; the frames and the video timestamps at every chunk seam; black runs (2 s \
            or more, by blackdetect's rule, measured by the workers on the frames they encoded, so \
            the output is never decoded again for them); the audio \
            timestamps at every audio block seam; and the sound decoded once for its integrated \
            loudness and loudness range (ITU-R BS.1770-4, EBU Tech 3342), true peak (four times \
            oversampled), sample peak and silences (2 s or more under -60 dBFS). The sound is \
            usually measured before the join, from the audio blocks joined alone while the \
            pictures still render; the report takes that measure only when the output's audio \
            packets are the same bytes and timestamps.

            With export.audio.loudness the report holds the output to its target; with \
            "failIfMissed": true a missed target fails the job, its output kept beside its path \
            as NAME.failed-qc.EXT.

            Exit codes: 0 the output meets its target (or has none), 1 farm unreachable or no \
            report yet, 2 the output misses its target, 3 no such job, 64 a wrong command line.

            Examples:
              farm qc 12
              farm qc 12 --json | jq .audio.integrated
            """
    )

    @Argument(help: "The job.")
    var job: Int64

    @Flag(name: .long, help: "Print JSON (fields in docs/cli.md).")
    var json = false

    @OptionGroup(title: "Farm state") var database: DatabaseOptions

    func run() throws {
        let report = try FarmExit.guarding {
            try database.withFarm { store in
                guard try store.job(job) != nil else { throw FarmControlError.noSuchJob(job) }
                return try store.qc(job: job)
            }
        }
        guard let report else {
            FarmExit.printError("job \(job) has no QC report yet: it is made when the output is joined")
            throw FarmExit.failed
        }
        if json { try JSONOutput.print(report) } else { print(QCText.text(report, job: job)) }
        if !report.meetsTarget { throw FarmExit.badInput }
    }
}

/// `farm qc`'s text.
enum QCText {
    static func text(_ report: QCReport, job: Int64) -> String {
        var lines = ["job \(job) QC: \(report.path)"]
        let duration = report.duration.flatMap(Double.init).map { String(format: "%.3f s", $0) } ?? "-"
        lines.append("  file      \(report.container), \(Format.bytes(Int(report.bytes))), \(duration)")
        if let video = report.video {
            let profile = video.profile.map { " (\($0))" } ?? ""
            lines.append(
                "  video     \(video.codec)\(profile) \(video.width)x\(video.height) \(video.pixelFormat ?? "")"
                    + " \(video.frameRate ?? "") fps, \(video.frames) frames"
                    + (video.colorTransfer.map { ", transfer \($0)" } ?? ""))
        }
        if let video = report.video {
            lines.append("  black     \(runs(video.blacks)) (2 s or more of black frames)")
        }
        if let audio = report.audio {
            lines.append(
                "  audio     \(audio.codec) \(audio.sampleRate) Hz, \(audio.channels) channels, "
                    + "\(audio.samples) samples"
            )
            let integrated = audio.integrated.map { "\(LoudnessTarget.figure($0)) LUFS" } ?? "not measurable"
            lines.append(
                "  loudness  integrated \(integrated), range \(LoudnessTarget.figure(audio.loudnessRange)) LU, "
                    + "true peak \(audio.truePeak.map { LoudnessTarget.figure($0) } ?? "-inf") dBTP, "
                    + "sample peak \(audio.samplePeak.map { LoudnessTarget.figure($0) } ?? "-inf") dBFS")
            lines.append("  silence   \(runs(audio.silences)) (2 s or more under -60 dBFS)")
        }
        let broken = report.seams.broken
        lines.append(
            "  seams     \(report.seams.checked) checked, "
                + (broken.isEmpty
                    ? "every one continuous" : "\(broken.count) broken: " + broken.joined(separator: "; ")))
        if let target = report.target {
            let name = target.standard.map { "\($0.rawValue): " } ?? ""
            let wanted =
                "\(name)\(LoudnessTarget.figure(target.integrated)) LUFS "
                + "± \(LoudnessTarget.figure(target.tolerance)) LU, "
                + "true peak <= \(LoudnessTarget.figure(target.truePeak)) dBTP"
            lines.append("  target    \(wanted): " + (report.meetsTarget ? "met" : "MISSED"))
            for miss in report.misses { lines.append("            \(miss)") }
        }
        return lines.joined(separator: "\n")
    }

    static func runs(_ runs: [QCReport.Run]) -> String {
        runs.isEmpty ? "none" : runs.map { String(format: "%.2f-%.2f s", $0.start, $0.end) }.joined(separator: ", ")
    }
}
