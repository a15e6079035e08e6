import FarmCore
import Foundation
import Testing

/// docs/project.schema.json against the parser, object by object: the keys the schema lets an
/// object hold are the keys the parser reads there (its "allowed here" list for an unknown
/// key), so an editor that checks a project with the schema neither refuses a key the farm
/// takes nor passes one the farm refuses.
@Suite struct ProjectSchemaTests {
    /// A project that reaches every kind of object, each with one key of its own.
    static let project = """
        {"output": {"width": 64, "height": 36, "fps": 25, "audio": {"sampleRate": 48000},
                    "grade": {"cdl": {"slope": [1, 1, 1]}}},
         "export": {"video": {"codec": "h264"}, "audio": {"codec": "aac", "loudness": {"standard": "ebu-r128"}},
                    "poster": {"time": 1}, "thumbnails": {"every": 1}, "preview": {"width": 160},
                    "renditions": [{"width": 32, "height": 18, "video": {"crf": 30}}]},
         "assets": {"a": {"path": "a.mp4"}, "subs": {"path": "subs.srt", "type": "captions"}},
         "tracks": [
           {"kind": "video", "items": [
              {"asset": "a", "at": 0, "duration": 2, "source": {"start": 1}},
              {"asset": "a", "at": 2, "duration": 2}],
            "transitions": [{"between": [0, 1], "type": "dissolve", "duration": 0.5}]},
           {"kind": "video", "items": [{"title": {"text": "Hello"}, "at": 0, "duration": 1}]},
           {"kind": "video", "items": [{"asset": "subs", "at": 0, "duration": 4, "captions": {"soft": true}}]},
           {"kind": "audio", "items": [{"asset": "a", "at": 0, "duration": 4}]}]}
        """

    /// Each object: where it is in `project`, and where its keys are in the schema.
    static let objects: [(path: [Any], schema: [String])] = [
        ([], []),
        (["output"], ["properties", "output"]),
        (["output", "audio"], ["properties", "output", "properties", "audio"]),
        (["output", "grade"], ["properties", "output", "properties", "grade"]),
        (["output", "grade", "cdl"], ["properties", "output", "properties", "grade", "properties", "cdl"]),
        (["export"], ["properties", "export"]),
        (["export", "video"], ["properties", "export", "properties", "video"]),
        (["export", "audio"], ["properties", "export", "properties", "audio"]),
        (["export", "audio", "loudness"], ["properties", "export", "properties", "audio", "properties", "loudness"]),
        (["export", "poster"], ["properties", "export", "properties", "poster"]),
        (["export", "thumbnails"], ["properties", "export", "properties", "thumbnails"]),
        (["export", "preview"], ["properties", "export", "properties", "preview"]),
        (["export", "renditions", 0], ["properties", "export", "properties", "renditions", "items"]),
        (
            ["export", "renditions", 0, "video"],
            ["properties", "export", "properties", "renditions", "items", "properties", "video"]
        ),
        (["assets", "a"], ["properties", "assets", "additionalProperties"]),
        (["tracks", 0], ["properties", "tracks", "items"]),
        (["tracks", 0, "items", 0], ["$defs", "item"]),
        (["tracks", 0, "items", 0, "source"], ["$defs", "item", "properties", "source"]),
        (["tracks", 0, "transitions", 0], ["$defs", "transition"]),
        (["tracks", 1, "items", 0, "title"], ["$defs", "item", "properties", "title"]),
        (["tracks", 2, "items", 0, "captions"], ["$defs", "item", "properties", "captions"]),
    ]

    @Test(arguments: objects.indices)
    func theSchemaAllowsWhatTheParserReads(object: Int) throws {
        let (path, pointer) = Self.objects[object]
        let schema = try Self.schema()
        let allowed = try Self.properties(of: Self.node(schema, pointer), in: schema)
        let parsed = try Self.allowedByParser(at: path)
        let name = path.map { "\($0)" }.joined(separator: ".")
        #expect(
            parsed == allowed,
            """
            \(name.isEmpty ? "(root)" : name): the parser reads \(parsed.subtracting(allowed).sorted()) \
            that the schema lacks; the schema allows \(allowed.subtracting(parsed).sorted()) that the parser refuses
            """)
    }

    /// The keys the parser lists as "allowed here" for an unknown key put in the object at `path`.
    static func allowedByParser(at path: [Any]) throws -> Set<String> {
        var document = try JSONSerialization.jsonObject(with: Data(project.utf8))
        document = inserting(into: document, at: path[...])
        let data = try JSONSerialization.data(withJSONObject: document)
        do {
            _ = try ProjectParser(mediaRoot: URL(fileURLWithPath: "/media")).parse(Array(data), file: "p.json")
        } catch let error as ProjectError {
            let message = try #require(
                error.diagnostics.first { $0.path.hasSuffix("zzqqxxyyww") }?.message, "\(error)" as Comment)
            let list = try #require(message.range(of: "allowed here: "), "\(message)" as Comment)
            return Set(message[list.upperBound...].dropLast().components(separatedBy: ", "))
        }
        Issue.record("an unknown key at \(path) was accepted")
        return []
    }

    private static func inserting(into value: Any, at path: ArraySlice<Any>) -> Any {
        guard let step = path.first else {
            var object = value as! [String: Any]
            object["zzqqxxyyww"] = 1
            return object
        }
        if let index = step as? Int {
            var array = value as! [Any]
            array[index] = inserting(into: array[index], at: path.dropFirst())
            return array
        }
        var object = value as! [String: Any]
        object[step as! String] = inserting(into: object[step as! String]!, at: path.dropFirst())
        return object
    }

    static func schema() throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/project.schema.json")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static func node(_ schema: [String: Any], _ pointer: [String]) -> [String: Any] {
        var node = schema
        for step in pointer { node = resolved(node[step] as? [String: Any] ?? [:], in: schema) }
        return resolved(node, in: schema)
    }

    private static func resolved(_ node: [String: Any], in schema: [String: Any]) -> [String: Any] {
        guard let reference = node["$ref"] as? String else { return node }
        return Self.node(schema, reference.dropFirst(2).components(separatedBy: "/"))
    }

    /// Property names of `node`, its `$ref` and the branches of its `allOf`, `oneOf`, `anyOf`,
    /// `if`, `then` and `else`.
    static func properties(of node: [String: Any], in schema: [String: Any]) -> Set<String> {
        let node = resolved(node, in: schema)
        var names = Set((node["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
        for branch in ["allOf", "oneOf", "anyOf"] {
            for part in node[branch] as? [[String: Any]] ?? [] { names.formUnion(properties(of: part, in: schema)) }
        }
        for branch in ["if", "then", "else"] {
            if let part = node[branch] as? [String: Any] { names.formUnion(properties(of: part, in: schema)) }
        }
        return names
    }
}
