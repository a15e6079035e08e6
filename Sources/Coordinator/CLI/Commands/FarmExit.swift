import ArgumentParser
import FarmCore
import FarmPostgres
import FarmStore
import Foundation

/// The exit codes every command uses; docs/cli.md lists them.
enum FarmExit {
    /// The job failed, or the farm could not be reached.
    static let failed = ExitCode(1)
    /// A bad project, media file or option; nothing was queued or written.
    static let badInput = ExitCode(2)
    /// No such job, chunk or worker.
    static let notFound = ExitCode(3)
    /// The job was cancelled.
    static let cancelled = ExitCode(4)
    /// The job or chunk is in a state where the command does not apply.
    static let conflict = ExitCode(5)

    /// The exit code a finished job's watcher leaves with.
    static func of(jobState state: JobState) -> ExitCode {
        switch state {
        case .done: .success
        case .cancelled: cancelled
        default: failed
        }
    }

    /// Runs an operator command: a refused one prints its reason and exits 3 or 5, a farm that
    /// cannot be reached prints why and exits 1.
    static func guarding<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FarmControlError {
            printError(error.description)
            switch error {
            case .noSuchJob, .noSuchWorker, .noSuchChunk, .noSuchAudioBlock: throw notFound
            case .conflict: throw conflict
            }
        } catch let error as PostgresError {
            printError("the farm's database: \(error)")
            throw failed
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.writeUnlessClosed(Data("farm: \(text)\n".utf8))
    }
}
