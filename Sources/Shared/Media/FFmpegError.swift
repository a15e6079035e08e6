import CFFmpeg
import Glibc

/// A failed FFmpeg call: the negative AVERROR code, the operation and FFmpeg's own words for it.
public struct FFmpegError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String
    public let message: String

    /// `reason`, what the failing component logged, goes before FFmpeg's words for the code.
    public init(code: Int32, operation: String, reason: String? = nil) {
        self.code = code
        self.operation = operation
        var buffer = [CChar](repeating: 0, count: 256)
        cffmpeg_strerror(code, &buffer, buffer.count)
        self.message = reason.map { "\($0) (\(String(cString: buffer)))" } ?? String(cString: buffer)
    }

    public init(operation: String, message: String) {
        self.code = cffmpeg_averror(EINVAL)
        self.operation = operation
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    /// Returns `result` when it is not an error code, throws otherwise.
    @discardableResult
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        if result < 0 { throw FFmpegError(code: result, operation: operation()) }
        return result
    }

    /// Runs `call` and throws when it fails, with the error the component logged during the call
    /// as the reason: an encoder that refuses to open says why only in its log ("baseline profile
    /// doesn't support lossless"), and the code alone says "Invalid argument".
    @discardableResult
    static func check(explaining call: () -> Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
        _ = FFmpegLog.takeLastError()
        let result = call()
        if result < 0 { throw FFmpegError(code: result, operation: operation(), reason: FFmpegLog.takeLastError()) }
        return result
    }

    static let eof = cffmpeg_averror_eof()
    static let again = cffmpeg_averror(EAGAIN)
}

/// The outcome of a send/receive step in FFmpeg's codec API: EAGAIN and EOF are control flow.
enum CodecStep {
    case ready
    case needsInput
    case endOfStream
}

extension CodecStep {
    init(_ result: Int32, _ operation: @autoclosure () -> String) throws {
        switch result {
        case 0...: self = .ready
        case FFmpegError.again: self = .needsInput
        case FFmpegError.eof: self = .endOfStream
        default: throw FFmpegError(code: result, operation: operation())
        }
    }
}
