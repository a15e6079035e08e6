/// `export.renditions`: the ladder of encodes a platform streams (`Rendition`).
extension ProjectParser {
    /// Eight encodes of every frame: a ladder (Apple's HLS authoring guide lists nine for every
    /// device; a farm job makes one ladder) without one chunk's encoders outgrowing a worker.
    static let mostRenditions = 8

    func parseRenditions(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, video: ExportSettings.Video)
        -> [Rendition]??
    {
        guard case .array(let elements) = value else {
            log.add(path, "expected an array of renditions, got \(value.kindDescription)")
            return nil
        }
        guard (1...Self.mostRenditions).contains(elements.count) else {
            log.add(path, "must hold 1 to \(Self.mostRenditions) renditions (got \(elements.count))")
            return nil
        }
        var renditions: [Rendition] = []
        var valid = true
        var names: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let itemPath = "\(path)[\(index)]"
            guard let rendition = parseRendition(element, itemPath, log, video: video) else {
                valid = false
                continue
            }
            if let earlier = names[rendition.name] {
                log.add("\(itemPath).name", "\(JSONField.quote(rendition.name)) names renditions[\(earlier)] already")
                valid = false
            }
            names[rendition.name] = index
            renditions.append(rendition)
        }
        return valid ? .some(renditions) : nil
    }

    private func parseRendition(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, video: ExportSettings.Video)
        -> Rendition?
    {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let width = object.required("width", JSONField.integer)
        let height = object.required("height", JSONField.integer)
        let name = object.optional("name", default: nil) { JSONField.string($0, $1, $2).map { Optional($0) } }
        let settings = object.optional("video", default: video) {
            parseVideo($0, $1, $2, defaults: video, allowsGOP: false)
        }
        object.rejectUnknownKeys()
        var fits = true
        for (key, size) in [("width", width), ("height", height)] {
            if let size, size < 16 || size > 8192 || size % 2 != 0 {
                log.add(object.childPath(key), "must be an even number from 16 to 8192 (got \(size))")
                fits = false
            }
        }
        if let name = name ?? nil, !Rendition.isValidName(name) {
            log.add(
                object.childPath("name"),
                "\(JSONField.quote(name)) must be 1 to 32 of a-z, 0-9 and -: it names the rendition's files")
            fits = false
        }
        guard let width, let height, let name, let settings, fits else { return nil }
        // A rendition is named by its height unless named: "720p".
        return Rendition(name: name ?? "\(height)p", width: width, height: height, video: settings)
    }
}
