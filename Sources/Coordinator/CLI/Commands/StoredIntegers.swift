import ArgumentParser

/// Numbers the farm stores as PostgreSQL integers, checked on the command line: a value out of
/// range is a usage error naming the option, not a database failure.
enum StoredIntegers {
    /// A job's priority (`priority`, `submit --priority`).
    static func checkPriority(_ priority: Int) throws {
        guard Int(Int32.min)...Int(Int32.max) ~= priority else {
            throw ValidationError("a priority must lie in \(Int32.min)...\(Int32.max) (got \(priority))")
        }
    }

    /// `--chunk N`, a video chunk's index as `farm status JOB` shows it; indexes start at 0.
    static func checkChunk(_ chunk: Int?, flag: String = "--chunk", noun: String = "a chunk index") throws {
        guard let chunk else { return }
        guard 0...Int(Int32.max) ~= chunk else {
            throw ValidationError("\(flag) must be \(noun), 0 or more (got \(chunk))")
        }
    }
}
