import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// An EDL's ASC CDL, as OpenTimelineIO's cmx_3600 adapter keeps it in a clip's metadata.
@Suite struct OTIOGradeTests {
    @Test func clipCDLMetadataBecomesTheItemsGrade() throws {
        try OTIOImportTests.withMedia { dir in
            let cdl = """
                "metadata": {"cdl": {"asc_sop": {"slope": [0.1, 0.2, 0.3], "offset": [1.0, -0.0122, 0.0305],
                  "power": [1.0, 0.0, 1.0]}, "asc_sat": 0.9}},
                """
            let graded = OTIODocument.clip("A", "a.mov", source: (0, 24)).replacingOccurrences(
                of: #""metadata": {},"#, with: cdl)
            let satOnly = OTIODocument.clip("B", "b.mov", source: (0, 24)).replacingOccurrences(
                of: #""metadata": {},"#, with: #""metadata": {"cdl": {"asc_sat": 0.5}},"#)
            let broken = OTIODocument.clip("C", "a.mov", source: (0, 24)).replacingOccurrences(
                of: #""metadata": {},"#, with: #""metadata": {"cdl": {"asc_sop": {"slope": "1 1 1"}}},"#)
            let plain = OTIODocument.clip("D", "b.mov", source: (0, 24))
            let (project, result) = try OTIOImportTests.load(
                OTIODocument.timeline(
                    [OTIODocument.track("Video", "V1", [graded, satOnly, broken, plain])], rate: "24"),
                in: dir)
            let grades = project.tracks[0].items.map(\.grade)
            #expect(
                grades[0]
                    == ColourGrade(
                        cdl: ColourDecision(
                            slope: [0.1, 0.2, 0.3], offset: [1, -0.0122, 0.0305], power: [1, 0, 1], saturation: 0.9)))
            #expect(grades[1] == ColourGrade(cdl: ColourDecision(saturation: 0.5)))
            #expect(grades[2] == nil && grades[3] == nil)
            let notes = result.notes.map(\.description)
            #expect(
                notes.contains { $0.contains(#"Clip "C": metadata.cdl.asc_sop.slope is not three numbers"#) },
                "\(notes)")
        }
    }
}
