import ArgumentParser
import FarmCore

/// A size as operators write it: `20G`, `500M`, `64k`, plain bytes, or 0.
struct ByteSize: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int64

    init(bytes: Int64) {
        self.bytes = bytes
    }

    init?(argument: String) {
        if argument == "0" {
            bytes = 0
            return
        }
        // The same suffixes as a rate's (`--upload-limit`), read as bytes.
        guard let parsed = ByteRate(argument), parsed.bytesPerSecond < 9e18 else { return nil }
        bytes = Int64(parsed.bytesPerSecond)
    }

    var description: String { Format.bytes(Int(bytes)) }

    /// As an operator would write it (`20G`), for `--help`'s default.
    var defaultValueDescription: String {
        for (suffix, unit) in [("G", 1_000_000_000), ("M", 1_000_000), ("k", 1000)]
        where bytes >= unit && bytes % Int64(unit) == 0 {
            return "\(bytes / Int64(unit))\(suffix)"
        }
        return String(bytes)
    }
}
