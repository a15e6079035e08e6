import ArgumentParser
import FarmCore

/// The worker's options from the environment (`FARM_*`), for those not given as flags: a
/// service manager's env file then configures a worker without a command line to edit, and a
/// variable it leaves out or empty is simply not set.
extension WorkerCommand {
    mutating func takeEnvironment(_ environment: [String: String]) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        func number(_ name: String) throws -> Int? {
            guard let text = value(name) else { return nil }
            guard let number = Int(text) else { throw ValidationError("\(name) must be a whole number (got \(text))") }
            return number
        }
        coordinator = coordinator ?? value("FARM_COORDINATOR")
        mediaRoot = mediaRoot ?? value("FARM_MEDIA_ROOT")
        slots = try slots ?? number("FARM_SLOTS")
        threads = try threads ?? number("FARM_THREADS")
        id = id ?? value("FARM_WORKER_ID")
        key = key ?? value("FARM_KEY")
        coordinatorKey = coordinatorKey ?? value("FARM_COORDINATOR_KEY")
        scratch = scratch ?? value("FARM_SCRATCH")
        if tags == nil, let text = value("FARM_TAGS") {
            try Self.checkTags(text, from: "FARM_TAGS")
            tags = text
        }
        if x264Level == nil, let level = value("FARM_X264_LEVEL") {
            try Self.checkLevel(level, from: "FARM_X264_LEVEL")
            x264Level = level
        }
        if uploadLimit == nil, let text = value("FARM_UPLOAD_LIMIT") {
            guard let rate = ByteRate(text) else {
                throw ValidationError("FARM_UPLOAD_LIMIT must be a rate such as 20M (got \(text))")
            }
            uploadLimit = rate
        }
    }
}
