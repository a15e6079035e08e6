import FarmCore
import Testing

@Suite struct RateWindowTests {
    @Test func aSlowStartDoesNotHideTheSpeedNow() {
        var window = RateWindow(seconds: 5)
        window.note(0, at: 0)
        // Nothing for 8 s (an encoder's look-ahead filling), then 10 frames a second.
        window.note(0, at: 8)
        for second in 9...20 { window.note(Int64((second - 8) * 10), at: Double(second)) }
        #expect(abs(window.rate - 10) < 0.001)
        // The lifetime average would say 6.
        #expect(abs(Double(120) / 20 - 6) < 0.001)
    }

    @Test func aStallShowsAsZeroOnceTheWindowHasPassed() {
        var window = RateWindow(seconds: 5)
        for second in 0...10 { window.note(Int64(second * 4), at: Double(second)) }
        #expect(abs(window.rate - 4) < 0.001)
        window.note(40, at: 16)
        #expect(window.rate == 0)
    }

    @Test func oneSampleIsNoRate() {
        var window = RateWindow()
        window.note(5, at: 1)
        #expect(window.rate == 0)
    }
}
