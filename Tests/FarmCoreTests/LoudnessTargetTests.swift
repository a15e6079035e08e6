import FarmCore
import Foundation
import TestSupport
import Testing

/// `export.audio.loudness`: named targets, figures of one's own, and what is refused.
@Suite struct LoudnessTargetTests {
    func parse(_ loudness: String) throws -> LoudnessTarget? {
        try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(
            Array(
                """
                {"export": {"audio": {"loudness": \(loudness)}}, "assets": {"a": {"path": "a.wav"}},
                 "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                """.utf8), file: "p.json"
        ).export.audio.loudness
    }

    @Test func namedTargetsAndTheirFigures() throws {
        #expect(try parse(#""ebu-r128""#) == LoudnessTarget.Standard.ebuR128.target)
        #expect(try parse(#""atsc-a85""#)?.integrated == -24)
        #expect(try parse(#""streaming""#)?.truePeak == -1)
        let changed = try #require(
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(
                Array(
                    """
                    {"export": {"audio": {"codec": "aac", "loudness": {"standard": "ebu-r128", "truePeak": -2,
                       "failIfMissed": true}}},
                     "assets": {"a": {"path": "a.wav"}},
                     "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                    """.utf8), file: "p.json"
            ).export.audio.loudness)
        #expect(changed.integrated == -23 && changed.truePeak == -2 && changed.tolerance == 0.5 && changed.failIfMissed)
        let own = try #require(
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(
                Array(
                    """
                    {"export": {"audio": {"loudness": {"integrated": -27, "truePeak": -2, "tolerance": 2}}},
                     "assets": {"a": {"path": "a.wav"}},
                     "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
                    """.utf8), file: "p.json"
            ).export.audio.loudness)
        #expect(own == LoudnessTarget(integrated: -27, truePeak: -2, tolerance: 2))
    }

    @Test func badTargetsAreRefusedByTheirPaths() {
        let found = parseDiagnostics(
            """
            {"export": {"audio": {"loudness": {"integrated": 3, "truePeak": -1}}}, "assets": {"a": {"path": "a.wav"}},
             "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
            """)
        #expect(found.contains("export.audio.loudness.integrated: must be from -70 to 0 LUFS (got 3.0)"), "\(found)")
        let named = parseDiagnostics(
            """
            {"export": {"audio": {"loudness": "ebu-r129"}}, "assets": {"a": {"path": "a.wav"}},
             "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
            """)
        #expect(
            named.contains { $0.hasPrefix(#"export.audio.loudness: "ebu-r129" is not one of ebu-r128"#) }, "\(named)")
        let missing = parseDiagnostics(
            """
            {"export": {"audio": {"loudness": {"integrated": -23}}}, "assets": {"a": {"path": "a.wav"}},
             "tracks": [{"kind": "audio", "items": [{"asset": "a", "at": "0", "duration": "1"}]}]}
            """)
        #expect(missing.contains { $0.hasPrefix("export.audio.loudness.truePeak:") }, "\(missing)")
    }

    /// The limiter's gain never exceeds a sample's requirement, and comes from a bounded reach.
    @Test func theLimiterHoldsEverySampleUnderItsRequirement() {
        let limiter = PeakLimiter(sampleRate: 48000)
        let count = 5000
        var required = [Int64](repeating: PeakLimiter.unity, count: limiter.lookBehind + count + limiter.lookAhead)
        for spike in [100, 4000, 4001] { required[limiter.lookBehind + spike] = PeakLimiter.unity / 3 }
        let gains = limiter.gains(required: required, count: count)
        for n in 0..<count {
            #expect(gains[n] <= Double(required[limiter.lookBehind + n]) / Double(PeakLimiter.unity) + 1e-12)
        }
        // Falls over 4 ms before a peak, holds 50 ms after it, rises over 4 ms.
        #expect(gains[0] == 1 && gains[2700] == 1)
        #expect(gains[1000] < 1)
        #expect(abs(gains[4000] - 1.0 / 3) < 1e-9)
    }

    /// The true-peak meter finds the peak between samples: a full-scale sine at a quarter of
    /// the rate sampled 45° off its crests reads +3 dB over its samples, within the 49-tap
    /// interpolator's ripple there (BS.1770's, and libebur128's: 2.91 dB).
    @Test func truePeakFindsPeaksBetweenSamples() {
        var meter = TruePeakMeter()
        var peak = 0.0
        var samples = 0.0
        for n in 0..<4800 {
            let x = Float(sin(Double.pi / 2 * Double(n) + Double.pi / 4) * 0.5)
            samples = max(samples, Double(abs(x)))
            peak = max(peak, meter.push(x))
        }
        let over = TruePeakMeter.decibels(peak) - TruePeakMeter.decibels(samples)
        #expect(abs(over - 3.01) < 0.2, "\(over)")
    }

    /// Skipping what cannot raise the peak leaves the running peak the same to the last bit:
    /// on programme-like sound (quiet stretches, a loud passage late, crests between samples,
    /// full-scale clicks) and on noise just under a peak already held.
    @Test func truePeakBoundedByWhatItHoldsIsTheSame() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * 2 - 1
        }
        let signals: [[Float]] = [
            (0..<96_000).map { n in
                let envelope = n < 40_000 ? 0.05 : n < 41_000 ? 0.9 : n < 70_000 ? 0.3 : 0.97
                let tone = sin(Double.pi / 2 * Double(n) + Double.pi / 4)
                return Float(envelope * (0.6 * tone + 0.4 * noise()))
            },
            (0..<48_000).map { n in n % 9_001 == 0 ? 1 : Float(0.2 * noise()) },
            (0..<48_000).map { n in Float(0.499 + 0.001 * noise()) * (n % 2 == 0 ? 1 : -1) },
        ]
        for (index, signal) in signals.enumerated() {
            var whole = TruePeakMeter()
            var bounded = TruePeakMeter()
            var (exact, skipped) = (0.0, 0.0)
            for x in signal + [Float](repeating: 0, count: TruePeakMeter.delay) {
                exact = max(exact, whole.push(x))
                skipped = max(skipped, bounded.push(x, over: skipped))
            }
            #expect(exact > 0 && skipped == exact, "signal \(index): \(skipped) against \(exact)")
        }
    }
}
