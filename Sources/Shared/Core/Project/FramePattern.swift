import Foundation

/// A numbered-frames path as ffmpeg's `image2` names one: `plates/shot010.%04d.exr` is
/// `shot010.1001.exr`, `shot010.1002.exr`, ... (`%d` for unpadded numbers). One field only,
/// in the file's name, not its folder: a sequence is the files of one folder.
public struct FramePattern: Sendable, Hashable, Codable {
    /// The folder the frames are in.
    public var folder: String
    /// The file name before and after the number.
    public var prefix: String
    public var suffix: String
    /// Digits the number is padded to with zeros (0: not padded).
    public var digits: Int

    /// The pattern `path` holds, if its file name has exactly one `%d` or `%0Nd` field (and no
    /// other `%` but `%%`, a literal one, as in `image2`).
    public init?(path: String) {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard let parsed = Self.parse(name) else { return nil }
        folder = url.deletingLastPathComponent().path
        (prefix, digits, suffix) = parsed
    }

    private static func parse(_ name: String) -> (String, Int, String)? {
        var prefix = ""
        var suffix = ""
        var digits: Int?
        var characters = Substring(name)
        while let character = characters.popFirst() {
            guard character == "%" else {
                if digits == nil { prefix.append(character) } else { suffix.append(character) }
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                if digits == nil { prefix.append("%") } else { suffix.append("%") }
                continue
            }
            guard digits == nil else { return nil }
            let width = characters.prefix { $0.isASCII && $0.isNumber }
            characters = characters.dropFirst(width.count)
            // `%4d` pads with zeros too: `image2` reads every width as `%0Nd`.
            guard characters.popFirst() == "d" else { return nil }
            digits = Int(width) ?? 0
            guard let digits, digits <= 12 else { return nil }
        }
        guard let digits else { return nil }
        return (prefix, digits, suffix)
    }

    /// The number of the first frame the farm writes, as `image2` numbers by default.
    public static let firstWritten = 1

    /// Whether `path` names numbered frames (a `%d` field in its file name).
    public static func isPattern(_ path: String) -> Bool { FramePattern(path: path) != nil }

    /// The file name of frame `number`.
    public func fileName(_ number: Int) -> String {
        let text = String(number)
        let padding = String(repeating: "0", count: max(0, digits - text.count))
        return prefix + padding + text + suffix
    }

    /// The path of frame `number`.
    public func path(_ number: Int) -> String { folder + "/" + fileName(number) }

    /// The frame number a file name of this pattern holds; nil for other names. A padded
    /// pattern takes exactly its width (or more, past its largest number), as `image2` reads.
    public func number(of name: String) -> Int? {
        guard name.count > prefix.count + suffix.count, name.hasPrefix(prefix), name.hasSuffix(suffix) else {
            return nil
        }
        let digitsText = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard digitsText.allSatisfy({ $0.isASCII && $0.isNumber }), digitsText.count >= digits,
            digits > 0 || digitsText.first != "0" || digitsText.count == 1,
            let number = Int(digitsText), fileName(number) == name
        else { return nil }
        return number
    }

    /// The numbers of the frames in the folder now, in order: one listing of the folder.
    public func numbersPresent() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap(number(of:)).sorted()
    }

    /// The sequence's frames: the run of consecutive numbers from `first` (or the lowest number
    /// present), as `image2` reads up to the first missing one.
    public func run(from first: Int?) -> ClosedRange<Int>? {
        Self.run(in: numbersPresent(), from: first)
    }

    /// The run of consecutive numbers among `present` (sorted) from `first` or the lowest.
    public static func run(in present: [Int], from first: Int?) -> ClosedRange<Int>? {
        guard let start = first ?? present.first, let index = present.firstIndex(of: start) else { return nil }
        var last = start
        for number in present[(index + 1)...] {
            guard number == last + 1 else { break }
            last = number
        }
        return start...last
    }
}
