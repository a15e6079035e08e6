import Foundation
import Logging
import Shared

#if canImport(Glibc)
    import Glibc
#endif

/// A whole farm for one render: the database (private unless one is named), a coordinator on
/// a thread of this process, and worker processes on this machine, all stopped afterwards.
struct LocalFarm {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let database: DatabaseOptions
    let workers: Int
    let encoderThreads: Int
    let verbose: Bool

    /// Submits the job, reports frames done as they change, and returns the finished job.
    func render(_ submission: JobSubmission, progress: (RenderProgress) -> Void) throws -> JobRecord {
        SignalMask.unblockAll()
        FarmLogging.bootstrap(level: verbose ? .info : .error)
        let data = database.dataDirectory
        let (url, server) = try database.open()
        defer { server?.stop() }
        var configuration = CoordinatorServer.Configuration(database: url, dataDirectory: data)
        configuration.bind = "tcp://127.0.0.1:*"
        configuration.removeSegmentsWhenDone = true
        let coordinator = try CoordinatorServer(configuration: configuration)
        let coordinatorDone = DispatchSemaphore(value: 0)
        let coordinatorError = Locked<Error?>(nil)
        let thread = Thread {
            do { try coordinator.run() } catch { coordinatorError.withLock { $0 = error } }
            coordinatorDone.signal()
        }
        thread.start()
        defer {
            coordinator.stop()
            coordinatorDone.wait()
        }
        let processes = try startWorkers(endpoint: coordinator.endpoint, data: data)
        defer { stopWorkers(processes) }

        let store = try FarmStore(url: url)
        try store.connection.listen("farm")
        let id = try store.submit(submission)
        let clock = ContinuousClock()
        let started = clock.now
        while true {
            _ = try store.connection.notifications(timeout: 0.5)
            guard let job = try store.job(id) else { throw Failure(description: "job \(id) vanished from the database") }
            let done = job.state == "done" ? job.frameCount : try store.framesDone(job: id)
            progress(RenderProgress(framesDone: done, frameCount: job.frameCount, elapsed: clock.now - started))
            if job.isFinished { return job }
            if let error = coordinatorError.current { throw Failure(description: "coordinator stopped: \(error)") }
            if processes.allSatisfy({ !$0.isRunning }) {
                throw Failure(description: "every worker exited; see the logs in \(data.appendingPathComponent("logs").path)")
            }
        }
    }

    private func startWorkers(endpoint: String, data: URL) throws -> [Process] {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("farm-worker")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw Failure(description: "farm-worker is not installed beside farm (looked for \(binary.path))")
        }
        let logs = data.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        return try (1...workers).map { number in
            let id = "local-\(getpid())-\(number)"
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "--coordinator", endpoint, "--id", id, "--threads", String(encoderThreads),
                "--scratch", data.appendingPathComponent("scratch").appendingPathComponent(id).path,
            ]
            process.standardInput = FileHandle.nullDevice
            if !verbose {
                let log = logs.appendingPathComponent("worker-\(number).log")
                _ = FileManager.default.createFile(atPath: log.path, contents: nil)
                let handle = try FileHandle(forWritingTo: log)
                process.standardError = handle
                process.standardOutput = handle
            }
            try process.run()
            return process
        }
    }

    /// SIGTERM, then SIGKILL for any worker still running after five seconds.
    private func stopWorkers(_ processes: [Process]) {
        for process in processes where process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while processes.contains(where: \.isRunning), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        for process in processes { process.waitUntilExit() }
    }
}
