import FarmCore
import Testing

@Suite struct ResamplerPhaseTests {
    @Test func cyclesAreTheRatesOverTheirCommonDivisor() {
        let phase = ResamplerPhase(inputRate: 44100, outputRate: 48000)
        #expect(phase.period == 147)
        #expect(ResamplerPhase(inputRate: 48000, outputRate: 48000).period == 1)
        #expect(ResamplerPhase(inputRate: 48000, outputRate: 32000).period == 3)
    }

    @Test func skipsToTheNextStartOfACycle() {
        let phase = ResamplerPhase(inputRate: 44100, outputRate: 48000)
        #expect(phase.inputToSkip(from: 0) == 0)
        #expect(phase.inputToSkip(from: 1) == 146)
        #expect(phase.inputToSkip(from: 147 * 300) == 0)
        #expect(phase.inputToSkip(from: 147 * 300 + 100) == 47)
        // Before the stream's first sample (a codec's pre-skip): forward to it.
        #expect(phase.inputToSkip(from: -5) == 5)
        // Every position lands on a start within one cycle.
        for position in Int64(-400)..<400 {
            let skipped = phase.inputToSkip(from: position)
            #expect(skipped >= 0 && skipped < 147 && (position + skipped) % 147 == 0)
        }
    }
}
