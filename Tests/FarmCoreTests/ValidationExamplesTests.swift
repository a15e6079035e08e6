import FarmCore
import Foundation
import Testing

/// docs/project-format.md shows what `farm validate` prints; the lines it shows for keyframes
/// are what the parser says (it once showed `only "linear" interpolation is supported`, long
/// after every curve was taken).
@Suite struct ValidationExamplesTests {
    static let documentation: String = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/project-format.md")
        return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }()

    /// The documented line for `file` and `path`, if any.
    static func documented(_ file: String, _ path: String) -> String? {
        documentation.split(separator: "\n").map(String.init).first { $0.hasPrefix("\(file): \(path): ") }
    }

    @Test func theDocumentedInterpolationMistakeIsTheParsersMessage() throws {
        let path = "tracks[0].items[0].opacity.keys[2][2]"
        let line = try #require(Self.documented("keys.json", path))
        let json = """
            {"assets": {"a": {"path": "a.mp4"}},
             "tracks": [{"kind": "video", "items": [{"asset": "a", "at": "0", "duration": "2",
               "opacity": {"keys": [["0", 0], ["0.5", 1], ["1", 0, "ease-inn"]]}}]}]}
            """
        #expect(throws: ProjectError.self) {
            try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(Array(json.utf8), file: "keys.json")
        }
        do {
            _ = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(Array(json.utf8), file: "keys.json")
        } catch let error as ProjectError {
            #expect(error.description.split(separator: "\n").map(String.init).contains(line), "\(error)")
        }
    }
}
