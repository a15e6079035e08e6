import FarmCore
import Foundation

/// `MediaProbe` in a child process (`HelperCommand.probeMedia`, a `HelperProcess`): a user's file
/// that makes FFmpeg crash or hang is reported as that asset's problem, and the command that
/// probed it lives on to say so.
public final class IsolatedMediaProbe: @unchecked Sendable {
    /// A probe's outcome as the child reports it: a line of JSON.
    public struct Answer: Codable {
        public var info: MediaInfo?
        public var operation: String?
        public var message: String?

        /// Probes `path` here, in the child.
        public init(probing path: String) {
            do {
                info = try MediaProbe.probe(path: path)
            } catch let error as FFmpegError {
                (operation, message) = (error.operation, error.message)
            } catch {
                (operation, message) = (path, String(describing: error))
            }
        }
    }

    private let argv: [String]
    private let timeoutSeconds: Int
    /// Children not answering anyone now; a probe on another thread starts one more.
    private let idle = Locked<[HelperProcess]>([])

    /// `program` is the `farm` executable; a file whose probe takes `timeoutSeconds` is refused.
    public init(program: String, timeoutSeconds: Int = 60) {
        argv = HelperCommand.probeMedia.argv(program: program)
        self.timeoutSeconds = timeoutSeconds
    }

    /// The child's side: answers each line on standard input (a path, as a JSON string) with one
    /// line of JSON (an `Answer`) until its input ends.
    public static func serve() {
        FFmpegLog.configure(verbose: false)
        let (encoder, decoder) = (JSONEncoder(), JSONDecoder())
        HelperProcess.serve { line in
            let path = (try? decoder.decode(String.self, from: Data(line.utf8))) ?? line
            let answer = (try? encoder.encode(Answer(probing: path))) ?? Data()
            return String(decoding: answer, as: UTF8.self)
        }
    }

    /// What `MediaProbe.probe(path:)` returns or throws, found out by a child. Safe to call
    /// from several threads: each has a child of its own while it asks.
    public func probe(path: String) throws -> MediaInfo {
        let helper =
            idle.withLock { $0.popLast() } ?? HelperProcess(argv, timeoutSeconds: timeoutSeconds)
        defer { idle.withLock { $0.append(helper) } }
        let answer: Answer
        do {
            // JSON: a path may hold a line break.
            let line = try helper.ask(json: path)
            answer = try JSONDecoder().decode(Answer.self, from: Data(line.utf8))
        } catch let failure as HelperProcess.Failure {
            throw FFmpegError(operation: path, message: "the probe \(failure.reason)")
        } catch {
            throw FFmpegError(operation: path, message: "the probe's answer is unreadable (\(error))")
        }
        if let info = answer.info { return info }
        throw FFmpegError(operation: answer.operation ?? path, message: answer.message ?? "cannot read")
    }
}
