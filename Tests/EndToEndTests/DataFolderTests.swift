import FarmCore
import Foundation
import TestSupport
import Testing

/// A data folder belongs to one farm database: a coordinator on another database refuses it,
/// since both would number their jobs from 1 into the same jobs/N.
@Suite struct DataFolderTests {
    @Test func aSecondDatabaseCannotTakeAnotherFarmsDataFolder() throws {
        try withTemporaryDirectory { dir in
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            try farm.startCoordinator()
            let marker = dir.appendingPathComponent("data/farm-id")
            try farm.wait("the coordinator to claim its data folder") {
                FileManager.default.fileExists(atPath: marker.path)
            }
            let other = try TestDatabase.create()
            let refused = try runFarm([
                "serve", "--database", other, "--data", dir.appendingPathComponent("data").path, "--bind",
                "ipc://\(dir.path)/other.sock",
            ])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(
                refused.stderr.contains("data folder \(dir.path)/data belongs to another farm's database"),
                "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
    }
}
