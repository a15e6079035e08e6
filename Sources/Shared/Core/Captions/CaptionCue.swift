/// One caption: text shown from `start` to `end` (media times of its caption file, seconds).
public struct CaptionCue: Sendable, Codable, Hashable {
    public var start: Rational
    public var end: Rational
    /// Plain text, tags and entities resolved; lines separated by "\n".
    public var text: String
    /// The line of the caption file where the cue's timing is written, for messages.
    public var line: Int

    public init(start: Rational, end: Rational, text: String, line: Int) {
        self.start = start
        self.end = end
        self.text = text
        self.line = line
    }
}

/// A caption file that could not be read: its name, the line at fault and what is wrong there.
public struct CaptionFileError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 for a problem with the whole file.
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
}
