import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process kept running to answer requests, one line in and one line out, so that work
/// on untrusted files (FFmpeg decoding an upload or a user's media) can crash or hang the child
/// but never the process that asked. The request in flight when the child dies or stalls fails;
/// the next one starts a fresh child. Used from one thread at a time.
public final class HelperProcess {
    /// Why a request got no answer: the child crashed, ended or hung.
    public struct Failure: Error, CustomStringConvertible {
        /// "crashed (signal 11)", "ended (status 3)", "took longer than 300 s".
        public var reason: String
        public var description: String { "the helper process \(reason)" }
    }

    private let argv: [String]
    private let timeoutSeconds: Int
    private var child: Subprocess.Piped?
    private var pending = LineBuffer()

    public init(_ argv: [String], timeoutSeconds: Int) {
        self.argv = argv
        self.timeoutSeconds = timeoutSeconds
        // A child that died makes writes to its pipe fail with EPIPE instead of killing us.
        signal(SIGPIPE, SIG_IGN)
    }

    deinit { stop() }

    /// Sends `request` (one line) and returns the child's one-line answer.
    public func ask(_ request: String) throws -> String {
        precondition(!request.contains("\n"), "a request is one line")
        // An answer left over belongs to no request: start afresh rather than misattribute it.
        if !pending.isEmpty { stop() }
        let line = Data((request + "\n").utf8)
        // A child that ended while idle is started again, once, before this request is blamed.
        if (try? send(line)) == nil {
            stop()
            try send(line)
        }
        return try readAnswer()
    }

    /// Sends `request` as one line of JSON and returns the child's one-line answer.
    public func ask(json request: some Encodable) throws -> String {
        try ask(String(decoding: try JSONEncoder().encode(request), as: UTF8.self))
    }

    /// The child's side: answers each line of standard input with `answer`'s line, at once,
    /// until the input ends.
    public static func serve(_ answer: (String) -> String) {
        while let line = readLine(strippingNewline: true) {
            print(answer(line))
            fflush(stdout)
        }
    }

    /// Starts the child unless it runs, so that the first request does not wait for a process
    /// to start (a tenth of a second of linking, for a program of the farm's).
    public func start() throws {
        guard child == nil else { return }
        child = try Subprocess.spawnPiped(argv)
        pending.removeAll()
    }

    private func send(_ line: Data) throws {
        try start()
        try child?.input.write(contentsOf: line)
    }

    /// Closes the child's input (it ends by itself) and reaps it; a stuck child is killed.
    public func stop() {
        _ = end()
    }

    /// Stops the child and returns its exit status (128 + N for signal N).
    private func end() -> Int32 {
        guard let current = child else { return 0 }
        child = nil
        pending.removeAll()
        try? current.input.close()
        close(current.output)
        if let status = Subprocess.wait(current.pid, timeout: 2) { return status }
        kill(current.pid, SIGKILL)
        return Subprocess.wait(current.pid, timeout: nil) ?? -1
    }

    private func readAnswer() throws -> String {
        guard let current = child else { throw Failure(reason: "did not start") }
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let line = pending.nextLine() { return String(decoding: line, as: UTF8.self) }
            var poller = pollfd(fd: current.output, events: Int16(POLLIN), revents: 0)
            let ready: Int32
            let count: Int
            do {
                ready = try SystemCall.retrying("poll") {
                    poll(&poller, 1, Int32(max(Duration.zero, deadline - ContinuousClock.now) / .milliseconds(1)))
                }
                count = ready > 0 ? try SystemCall.retrying("read") { read(current.output, &buffer, buffer.count) } : 0
            } catch {
                throw Failure(reason: "cannot hear it: \(error)")
            }
            guard ready > 0 else {
                kill(current.pid, SIGKILL)
                stop()
                throw Failure(reason: "took longer than \(timeoutSeconds) s")
            }
            guard count > 0 else {
                let status = end()
                throw Failure(reason: status > 128 ? "crashed (signal \(status - 128))" : "ended (status \(status))")
            }
            pending.append(buffer[..<count])
        }
    }
}
