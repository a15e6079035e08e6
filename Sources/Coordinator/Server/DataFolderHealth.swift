import FarmCore
import FarmStore
import Foundation
import Logging

/// Whether the data folder takes writes. A failed write (disk full) is logged once and put in
/// the database for `farm status`; the uploads it held up wait (their workers send the piece
/// again) and go on once a write succeeds, which clears it. Nothing is failed or re-rendered
/// on its account: the finished segments are safe on the workers meanwhile.
final class DataFolderHealth {
    private let store: FarmStore
    private let logger: Logger
    private let folder: URL
    /// What the database shows now.
    private var problem: String?

    init(store: FarmStore, logger: Logger, folder: URL) {
        self.store = store
        self.logger = logger
        self.folder = folder
    }

    func failed(_ error: SystemCallError) throws {
        let folder = folder.path
        let text =
            error.isNoSpace
            ? "the coordinator's data folder \(folder) is full (\(error.reason)); uploads wait until space is freed"
            : "the coordinator cannot write in its data folder \(folder) (\(error)); uploads wait until it can"
        guard text != problem else { return }
        logger.error("\(text)")
        try store.setDataFolderProblem(text)
        problem = text
    }

    func wrote() throws {
        guard problem != nil else { return }
        logger.info("the data folder \(folder.path) takes writes again; uploads go on")
        try reset()
    }

    /// A coordinator that starts, or leads again, begins with a clean slate: a problem that
    /// lasts is found again by the next upload.
    func reset() throws {
        try store.setDataFolderProblem(nil)
        problem = nil
    }
}
