import FarmCore
import TestSupport
import Testing

@Suite struct RationalTests {
    @Test func parsesDecimalsAndRatiosExactly() {
        #expect(Rational(parsing: "1.5") == Rational(3, 2))
        #expect(Rational(parsing: "0.040") == Rational(1, 25))
        #expect(Rational(parsing: "30000/1001") == Rational(30000, 1001))
        #expect(Rational(parsing: "-3") == Rational(-3))
        #expect(Rational(parsing: "1.5/3") == Rational(1, 2))
        #expect(Rational(parsing: ".5") == Rational(1, 2))
    }

    @Test func rejectsWhatIsNotExact() {
        for text in ["", "abc", "1e3", "1/0", "1.2.3", "--1", "1/", ".", "0x10"] {
            #expect(Rational(parsing: text) == nil, "\(text)")
        }
    }

    @Test func arithmeticStaysExactAtNTSCRates() {
        let fps = Rational(30000, 1001)
        // 30000 frames at 29.97 fps last exactly 1001 seconds: no drift.
        #expect(Rational(30000) / fps == Rational(1001))
        #expect(Rational(1, 3) + Rational(1, 6) == Rational(1, 2))
        #expect(Rational(-7, 2).floor == -4)
        #expect(Rational(7, 2).ceil == 4)
        #expect(Rational(5, 2).rounded == 3)
        #expect(Rational(1, 3) < Rational(1, 2))
    }
}
