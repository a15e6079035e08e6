import FarmCore
import Foundation

/// Ties a data folder to one farm database: the first coordinator to use the folder writes the
/// database's identity into `farm-id`; a coordinator on another database refuses the folder, as
/// both would number their jobs from 1 into the same `jobs/N`.
struct DataFolderClaim {
    struct Conflict: Error, CustomStringConvertible {
        var folder: String
        var description: String {
            "the data folder \(folder) belongs to another farm's database (their jobs would collide in "
                + "jobs/N): give this database its own --data folder, or remove \(folder)/farm-id if that "
                + "farm is gone"
        }
    }

    static func claim(_ folder: URL, identity: String) throws {
        let marker = folder.appendingPathComponent("farm-id")
        if let recorded = try? String(contentsOf: marker, encoding: .utf8) {
            guard recorded.trimmingCharacters(in: .whitespacesAndNewlines) == identity else {
                throw Conflict(folder: folder.path)
            }
            return
        }
        let file = AtomicFile(destination: marker)
        try Data((identity + "\n").utf8).write(to: file.temporary)
        try file.commit(durable: true)
    }
}
