import FarmCore
import Foundation
import TestSupport
import Testing

/// A job submitted where no coordinator has ever served would wait forever: a mistyped --data
/// or $FARM_DATA, or a database that is not the farm's. `farm submit` refuses it unless told
/// --queue-only.
@Suite struct SubmitWithoutCoordinatorTests {
    @Test func aMistypedDataFolderIsRefusedAndLeftUncreated() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let typo = dir.appendingPathComponent("farm-dta")
            let result = try runFarm([
                "submit", project.path, "-o", dir.appendingPathComponent("out.mov").path, "--data", typo.path,
            ])
            #expect(result.status == 5)
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr
                    == "farm: no coordinator has ever served the farm at \(typo.path), so nothing would render the job "
                    + "(a mistyped --data or $FARM_DATA?); start one with `farm serve --data \(typo.path)`, or pass "
                    + "--queue-only to queue it for one started later\n")
            #expect(!FileManager.default.fileExists(atPath: typo.path))
        }
    }

    @Test func aDatabaseNoCoordinatorServedIsRefusedUntilOneHas() throws {
        try withTemporaryDirectory { dir in
            let project = try FarmTests.seamProject(in: dir)
            let farm = try TestFarm(directory: dir)
            defer { farm.stopAll() }
            let output = dir.appendingPathComponent("out.mov")
            let refused = try farm.cli(["submit", project.path, "-o", output.path])
            #expect(refused.status == 5)
            #expect(refused.stderr.contains("no coordinator has ever served this farm database"))
            #expect(refused.stderr.contains("`farm serve --database URL`"))
            #expect(try farm.store.jobStatuses().isEmpty)

            let queued = try farm.cli(["submit", project.path, "-o", output.path, "--queue-only"])
            #expect(queued.status == 0, "\(queued.stderr)")
            try farm.start(workers: ["w1"])
            #expect(try farm.finish(1).state == .done)
            // Served once, the farm takes jobs without --queue-only.
            let second = try farm.cli(["submit", project.path, "-o", dir.appendingPathComponent("b.mov").path])
            #expect(second.status == 0, "\(second.stderr)")
        }
    }
}
