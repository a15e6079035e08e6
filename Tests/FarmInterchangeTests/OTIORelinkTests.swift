import FarmCore
import FarmInterchange
import Foundation
import TestSupport
import Testing

/// `--relink PREFIX=DIR` takes the prefix as a path or as the URL the document writes.
@Suite struct OTIORelinkTests {
    static func assetPaths(url: String, relink prefix: String, to folder: URL) throws -> [String] {
        var options = OTIOImport.Options()
        options.relinks = [(prefix, folder.path)]
        let clip = OTIODocument.clip("A", url, source: (0, 24))
        let document = OTIODocument.timeline([OTIODocument.track("Video", "V1", [clip])], rate: "24")
        let result = try OTIOImport.read(
            Array(document.utf8), file: folder.appendingPathComponent("cut.otio").path, options: options)
        let text = JSONWriter.pretty(result.project)
        let project = try ProjectParser(mediaRoot: folder).parse(Array(text.utf8), file: "cut.json")
        return project.assets.values.map(\.path)
    }

    @Test func aPrefixMayBeTheFileURLAsTheDocumentWritesIt() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("x y.mov").path, contents: Data())
            let wanted = [dir.appendingPathComponent("x y.mov").path]
            for (url, prefix) in [
                ("file:///Volumes/My%20Media/x%20y.mov", "file:///Volumes/My%20Media/"),
                ("file:///Volumes/My%20Media/x%20y.mov", "file:///Volumes/My%20Media"),
                ("file:///Volumes/My%20Media/x%20y.mov", "/Volumes/My Media/"),
                ("file://localhost/D%3a/media/x%20y.mov", "file:///D:/media"),
                ("file:///D:/media/x%20y.mov", "file://localhost/D%3A/media/"),
                (#"D:\media\x y.mov"#, "file:///D:/media/"),
            ] {
                let paths = try Self.assetPaths(url: url, relink: prefix, to: dir)
                #expect(paths == wanted, "\(url) with \(prefix)")
            }
        }
    }

    /// A URL prefix matches whole path components, as a path prefix does.
    @Test func aURLPrefixMatchesWholeFolders() throws {
        try withTemporaryDirectory { dir in
            let problems: [String]
            do {
                _ = try Self.assetPaths(url: "file:///media2/a.mov", relink: "file:///media", to: dir)
                problems = []
            } catch let error as ProjectError {
                problems = error.diagnostics.map(\.description)
            }
            #expect(problems.count == 1)
            #expect(problems.first?.contains("media file not found: /media2/a.mov") == true, "\(problems)")
        }
    }
}
