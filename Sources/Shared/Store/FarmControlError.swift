/// Why an operator's command was refused; the CLI turns each case into its exit code.
public enum FarmControlError: Error, CustomStringConvertible, Equatable {
    case noSuchJob(Int64)
    case noSuchWorker(String)
    case noSuchChunk(job: Int64, index: Int)
    case noSuchAudioBlock(job: Int64, index: Int)
    /// The job or chunk is in a state where the command makes no sense.
    case conflict(String)

    public var description: String {
        switch self {
        case .noSuchJob(let id): "no job \(id) (farm status lists the jobs)"
        case .noSuchWorker(let id): "no worker \(id) (farm workers lists them)"
        case .noSuchAudioBlock(let job, let index):
            "job \(job) has no audio block \(index) (farm status \(job) --all lists its blocks)"
        case .noSuchChunk(let job, let index):
            "job \(job) has no video chunk \(index) (farm status \(job) lists its chunks)"
        case .conflict(let text): text
        }
    }
}
