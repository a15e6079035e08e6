import CFFmpeg
import FarmCore

// FFmpeg's rationals stay inside this module; the rest of the farm speaks `Rational`.
extension Rational {
    init(_ value: AVRational) {
        self.init(Int64(value.num), Int64(value.den))
    }
}

extension AVRational {
    /// Time bases and frame rates are small fractions; one that does not fit FFmpeg's 32-bit
    /// fields is a bug in the caller, not a media problem.
    init(_ value: Rational) {
        self.init(num: Int32(value.numerator), den: Int32(value.denominator))
    }
}
