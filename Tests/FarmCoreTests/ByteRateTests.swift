import FarmCore
import Testing

struct ByteRateTests {
    @Test(arguments: [("500k", 500_000.0), ("2M", 2_000_000), ("1.5M", 1_500_000), ("3G", 3e9), ("12500", 12_500)])
    func ratesReadWithPowersOfAThousand(_ text: String, _ bytesPerSecond: Double) {
        #expect(ByteRate(text)?.bytesPerSecond == bytesPerSecond)
    }

    @Test(arguments: ["", "0", "-5k", "k", "5kk", "fast", "nan", "inf", "1e400"])
    func anythingElseIsRefused(_ text: String) {
        #expect(ByteRate(text) == nil)
    }

    @Test func describedInItsLargestUnit() {
        #expect(ByteRate(bytesPerSecond: 20_000_000).description == "20MB/s")
        #expect(ByteRate(bytesPerSecond: 1_500).description == "1.50kB/s")
        #expect(ByteRate(bytesPerSecond: 512).description == "512B/s")
    }
}
