import ArgumentParser

/// A span written as operators write it: `7d`, `12h`, `30m`, `45s`, or plain seconds.
struct Duration: ExpressibleByArgument, CustomStringConvertible {
    let seconds: Double
    let description: String

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        var number = Substring(argument)
        var unit = 1.0
        if let last = argument.last, let scale = units[last] {
            number = number.dropLast()
            unit = scale
        }
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        seconds = value * unit
        description = argument
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
