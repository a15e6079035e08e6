/// Why an operator's command was refused; the CLI turns each case into its exit code.
public enum FarmControlError: Error, CustomStringConvertible, Equatable {
    case noSuchJob(Int64)
    /// `similar`: workers whose id is this one with a host part, or whose name part is this
    /// one's (a keyed worker's id is `NAME@HOST`).
    case noSuchWorker(String, similar: [String] = [])
    case noSuchChunk(job: Int64, index: Int)
    case noSuchAudioBlock(job: Int64, index: Int)
    /// The job or chunk is in a state where the command makes no sense.
    case conflict(String)

    public var description: String {
        switch self {
        case .noSuchJob(let id): "no job \(id) (farm status lists the jobs)"
        case .noSuchWorker(let id, let similar):
            similar.isEmpty
                ? "no worker \(id) (farm workers lists them)"
                : "no worker \(id); did you mean \(similar.joined(separator: " or "))? (farm workers lists them)"
        case .noSuchAudioBlock(let job, let index):
            "job \(job) has no audio block \(index) (farm status \(job) --all lists its blocks)"
        case .noSuchChunk(let job, let index):
            "job \(job) has no video chunk \(index) (farm status \(job) lists its chunks)"
        case .conflict(let text): text
        }
    }
}
