/// An asset's numbered frames: `"path": "plates/shot010.%04d.exr"` with its first frame and rate.
extension ProjectParser {
    /// The timing of the frames `file` names, if it is a frame pattern; `firstFrame` and
    /// `frameRate` are refused on any other path (they would say nothing).
    func parseImageSequence(_ object: JSONObjectReader, path file: String?, log: DiagnosticLog) -> Asset.ImageSequence?
    {
        let first = object.optional("firstFrame", default: nil) { JSONField.integer($0, $1, $2).map { Optional($0) } }
        let rate = object.optional("frameRate", default: nil) { JSONField.rate($0, $1, $2).map { Optional($0) } }
        let isPattern = file.map(FramePattern.isPattern) ?? false
        for key in ["firstFrame", "frameRate"] where object.has(key) && !isPattern {
            log.add(
                object.childPath(key),
                "is for numbered frames: the path needs a frame number field such as %04d (got \(file ?? "no path"))")
        }
        if let first = first ?? nil, first < 0 || first > 999_999_999 {
            log.add(object.childPath("firstFrame"), "must be a frame number from 0 to 999999999 (got \(first))")
        }
        if let rate = rate ?? nil, rate <= .zero || Rational(240) < rate {
            log.add(object.childPath("frameRate"), "must be > 0 and at most 240 (got \(rate))")
        }
        guard isPattern else { return nil }
        return Asset.ImageSequence(firstFrame: first ?? nil, frameRate: rate ?? nil)
    }
}
