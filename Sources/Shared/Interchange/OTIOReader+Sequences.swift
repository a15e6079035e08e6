import FarmCore
import Foundation

/// OTIO's `ImageSequenceReference` as a numbered-frames asset (`FramePattern`): the folder
/// `target_url_base`, the file names `name_prefix`, the number padded to `frame_zero_padding`
/// and `name_suffix`, starting at `start_frame` and playing at `rate`.
extension OTIOReader {
    /// The asset id for the sequence `reference` names; nil with a problem when it cannot be read.
    func imageSequenceAsset(_ reference: OTIOObject, clip: OTIOObject) -> String? {
        // An empty (or absent) base is the timeline's own folder, as OTIO resolves it.
        var base = ""
        if case .string(let written)? = reference.raw("target_url_base") { base = written }
        guard let decoded = base.isEmpty ? "" : OTIOMediaPath.path(fromURL: base) else {
            problem(reference.childPath("target_url_base"), "\(clip.label): not a file URL or path: \(base)")
            return nil
        }
        let text = { (key: String) -> String in
            if case .string(let value)? = reference.raw(key) { return value }
            return ""
        }
        let integer = { (key: String, fallback: Int) -> Int? in
            guard let value = reference.raw(key) else { return fallback }
            guard let number = OTIOTime.number(value), number.denominator == 1 else { return nil }
            return Int(number.numerator)
        }
        guard let first = integer("start_frame", 1), first >= 0, let padding = integer("frame_zero_padding", 0),
            (0...12).contains(padding), let step = integer("frame_step", 1)
        else {
            problem(
                reference.path, "\(clip.label): start_frame, frame_step and frame_zero_padding must be whole numbers")
            return nil
        }
        guard step == 1 else {
            problem(
                reference.childPath("frame_step"),
                "\(clip.label): only every frame of a sequence can be read (frame_step 1, got \(step))")
            return nil
        }
        // Some writers leave `rate` 0 (toucan's tests): the available range's rate says it then.
        let written = reference.raw("rate").flatMap(OTIOTime.number) ?? .zero
        guard let rate = written > .zero ? written : availableRate(of: reference) else {
            problem(reference.childPath("rate"), "\(clip.label): an ImageSequenceReference needs its frame rate")
            return nil
        }
        // A literal `%` in a name is `%%` in the pattern, as image2 reads it.
        let escape = { (name: String) in name.replacingOccurrences(of: "%", with: "%%") }
        let field = padding > 0 ? "%0\(padding)d" : "%d"
        let frames = OTIOMediaPath.relinked(decoded, with: options.relinks)
        let path =
            frames + (frames.isEmpty || frames.hasSuffix("/") ? "" : "/") + escape(text("name_prefix")) + field
            + escape(text("name_suffix"))
        let resolved = path.hasPrefix("/") ? path : (options.mediaRoot ?? folder).appendingPathComponent(path).path
        guard let pattern = FramePattern(path: resolved), FileManager.default.fileExists(atPath: pattern.path(first))
        else {
            problem(
                reference.childPath("target_url_base"),
                "\(clip.label): first frame not found: \(FramePattern(path: resolved)?.path(first) ?? resolved)")
            return nil
        }
        let id = assetID(for: options.absolutePaths ? resolved : path)
        sequences[id] = (first, rate)
        return id
    }

    /// The rate of the reference's `available_range.duration`, if it has one above 0.
    private func availableRate(of reference: OTIOObject) -> Rational? {
        guard case .object(let range)? = reference.raw("available_range"),
            case .object(let duration)? = range.first(where: { $0.key == "duration" })?.value,
            let value = duration.first(where: { $0.key == "rate" })?.value, let rate = OTIOTime.number(value),
            rate > .zero
        else { return nil }
        return rate
    }
}
