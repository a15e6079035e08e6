import Foundation
import TestSupport
import Testing

/// `farm batch`: one template, one job per CSV row, on one farm; a bad row is reported by its
/// number and JSON path while the others render, and each row's file is what `farm render
/// --local` makes of the template with that row's values.
@Suite struct BatchTests {
    static let template = """
        {"fields": {"CITY": {"type": "string"}, "COLOUR": {"type": "string", "default": "#2040A0"},
                    "LEVEL": {"type": "number", "default": 1}},
         "output": {"width": 96, "height": 64, "fps": "25"},
         "export": {"video": {"preset": "ultrafast"}},
         "assets": {},
         "tracks": [
           {"kind": "video",
            "items": [{"solid": "{{ COLOUR }}", "at": "0", "duration": "0.2", "opacity": "{{ LEVEL }}"}]},
           {"kind": "video", "items": [{"title": {"text": "{{ CITY }}", "size": 18}, "at": "0", "duration": "0.2"}]}
         ]}
        """

    @Test func aHundredRowsRenderAHundredFilesAndABadRowIsNamed() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.template.utf8).write(to: dir.appendingPathComponent("promo.json"))
            var csv = "CITY,LEVEL\n"
            for row in 1...100 {
                csv += row == 37 ? "\"City 37, bad\",x\n" : "\"City \(row), \(row % 7)\",0.\(row % 10)5\n"
            }
            try Data(csv.utf8).write(to: dir.appendingPathComponent("rows.csv"))
            let result = try runFarm(
                [
                    "batch", "promo.json", "rows.csv", "-o", "out/{{ row }}.mp4", "--data", "farm", "--workers", "2",
                    "--no-dashboard",
                ], in: dir)
            // A refused row: exit 2 once the others are rendered.
            #expect(result.status == 2, "\(result.stderr)")
            #expect(
                result.stderr.contains("rows.csv: row 37: LEVEL: expected a number for LEVEL, got \"x\"\n"),
                "\(result.stderr)")
            #expect(
                result.stdout.contains("rows.csv: 99 of 100 rows rendered, 1 row refused, 0 failed or cancelled"),
                "\(result.stdout)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/37.mp4").path))
            var firstFrames: Set<String> = []
            for row in 1...100 where row != 37 {
                let hashes = try frameHashes(dir.appendingPathComponent("out/\(row).mp4"))
                #expect(hashes.count == 5, "row \(row)")
                firstFrames.insert(hashes.first ?? "")
                #expect(
                    result.stdout.contains("row \(row): done \(dir.appendingPathComponent("out/\(row).mp4").path)\n"))
            }
            #expect(firstFrames.count == 99)
            // Row 12's file against one render of the template with row 12's values.
            let local = try runFarm(
                [
                    "render", "promo.json", "-o", "local-12.mp4", "--local", "--set", "CITY=City 12, 5", "--set",
                    "LEVEL=0.25",
                ],
                in: dir)
            #expect(local.status == 0, "\(local.stderr)")
            #expect(
                try frameHashes(dir.appendingPathComponent("local-12.mp4"))
                    == frameHashes(dir.appendingPathComponent("out/12.mp4")))
        }
    }

    @Test func aWrongPatternOrCSVIsRefusedBeforeAnythingStarts() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.template.utf8).write(to: dir.appendingPathComponent("promo.json"))
            try Data("CITY\nOslo\n\"Rio,BR\"\n".utf8).write(to: dir.appendingPathComponent("rows.csv"))
            try Data("CITY\nOslo\nRio,BR\n".utf8).write(to: dir.appendingPathComponent("bad.csv"))
            let pattern = try runFarm(
                ["batch", "promo.json", "rows.csv", "-o", "{{ TOWN }}.mp4", "--data", "farm"], in: dir)
            #expect(pattern.status == 2)
            #expect(
                pattern.stderr.contains(
                    "--output: {{ TOWN }} is no column of rows.csv (columns: CITY; {{ row }} is the row's number)"),
                "\(pattern.stderr)")
            let csv = try runFarm(
                ["batch", "promo.json", "bad.csv", "-o", "{{ row }}.mp4", "--data", "farm"], in: dir)
            #expect(csv.status == 2)
            #expect(csv.stderr.contains("bad.csv: line 3: 2 fields where the header names 1 columns"), "\(csv.stderr)")
            // Two rows into one file: the second is refused.
            try Data("CITY\nOslo\nRio\n".utf8).write(to: dir.appendingPathComponent("same.csv"))
            let same = try runFarm(
                ["batch", "promo.json", "same.csv", "-o", "one.mp4", "--data", "farm", "--no-dashboard"], in: dir)
            #expect(same.status == 2)
            #expect(
                same.stderr.contains(
                    "same.csv: row 2: output \(dir.appendingPathComponent("one.mp4").path) is row 1's too"),
                "\(same.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("one.mp4").path))
        }
    }

    @Test func mergeFileValuesAreTypedAndSetWins() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.template.utf8).write(to: dir.appendingPathComponent("promo.json"))
            try Data(#"{"CITY": 3, "LEVEL": 0.5}"#.utf8).write(to: dir.appendingPathComponent("bad.json"))
            let bad = try runFarm(["validate", "promo.json", "--merge", "bad.json"], in: dir)
            #expect(bad.status == 2)
            #expect(bad.stderr == "promo.json: merge.CITY: expected a string for CITY, got a number\n", "\(bad.stderr)")
            let fixed = try runFarm(["validate", "promo.json", "--merge", "bad.json", "--set", "CITY=Oslo"], in: dir)
            #expect(fixed.status == 0, "\(fixed.stderr)")
            let missing = try runFarm(["validate", "promo.json", "--merge", "none.json"], in: dir)
            #expect(missing.status == 2)
            #expect(missing.stderr == "none.json: file not found\n", "\(missing.stderr)")
        }
    }
}
