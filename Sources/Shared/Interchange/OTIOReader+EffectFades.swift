import FarmCore

/// Fades written as a clip's effects rather than as transitions: Kdenlive's (through
/// otio-kdenlive-adapter) `fade_from_black` and `fade_to_black` on pictures, `fadein` and
/// `fadeout` on sound, each with its length in `metadata.duration`. Each becomes a fade of the
/// item at that edge, within the item, from or to what lies below its track: pictures only for
/// the picture fades (`"audio": "none"`), on an audio track the sound.
extension OTIOReader {
    enum EffectFade: String {
        case fromBlack = "fade_from_black"
        case toBlack = "fade_to_black"
        case soundIn = "fadein"
        case soundOut = "fadeout"

        var fadesIn: Bool { self == .fromBlack || self == .soundIn }
        var isPicture: Bool { self == .fromBlack || self == .toBlack }
    }

    /// Whether `effect` is one of those fades: `clipFades` places it.
    static func isEffectFade(_ effect: OTIOObject) -> Bool {
        guard case .string(let name)? = effect.raw("effect_name") else { return false }
        return EffectFade(rawValue: name) != nil
    }

    /// The fades the effects of `clips` ask for, beside a track's `transitions`.
    func effectFades(
        of clips: [(object: OTIOObject, index: Int, duration: Rational)], kind: String, besides transitions: [JSONValue]
    ) -> [JSONValue] {
        // How much of each item the transitions take at its start and at its end.
        var starts: [Int: Rational] = [:]
        var ends: [Int: Rational] = [:]
        for transition in transitions {
            guard case .object(let members) = transition,
                case .array(let sides)? = members.first(where: { $0.key == "between" })?.value, sides.count == 2
            else { continue }
            let span = { (key: String) -> Rational in
                guard case .string(let text)? = members.first(where: { $0.key == key })?.value else { return .zero }
                return Rational(parsing: text) ?? .zero
            }
            if case .number(let text) = sides[0], let index = Int(text) { ends[index] = span("inOffset") }
            if case .number(let text) = sides[1], let index = Int(text) { starts[index] = span("outOffset") }
        }
        return clips.flatMap { clip in
            clipFades(
                of: clip.object, index: clip.index, duration: clip.duration, kind: kind,
                joined: (starts[clip.index], ends[clip.index]))
        }
    }

    /// The fades `clip`'s effects ask for, as farm transitions of item `index` (`duration` long)
    /// on a track of `kind`. `joined` is how much of the item transitions take at its start and
    /// at its end, nil where none meets it; an edge a transition meets keeps it (the effect is
    /// noted), and a fade is cut short where it would overlap a transition or the other fade.
    func clipFades(
        of clip: OTIOObject, index: Int, duration: Rational, kind: String,
        joined: (start: Rational?, end: Rational?)
    ) -> [JSONValue] {
        var fades: [JSONValue] = []
        var taken = (start: joined.start ?? .zero, end: joined.end ?? .zero)
        for (position, value) in clip.array("effects").enumerated() {
            let path = clip.childPath("effects[\(position)]")
            guard case .object(let members) = value,
                case .string(let name)? = members.first(where: { $0.key == "effect_name" })?.value,
                let fade = EffectFade(rawValue: name)
            else { continue }
            if fade.isPicture && kind != "video" {
                note(path, "\(clip.label): effect \"\(name)\" on an audio track has no picture to fade; ignored")
                continue
            }
            if !fade.isPicture && kind == "video" {
                // A fade's sound follows its picture; the farm has no fade of sound alone there.
                note(
                    path,
                    "\(clip.label): effect \"\(name)\" fades sound alone, which the farm does on audio tracks "
                        + "only; ignored")
                continue
            }
            if (fade.fadesIn ? joined.start : joined.end) != nil {
                note(path, "\(clip.label): effect \"\(name)\" meets a transition at that edge; the transition is kept")
                continue
            }
            guard case .object(let metadata)? = members.first(where: { $0.key == "metadata" })?.value,
                let lengthValue = metadata.first(where: { $0.key == "duration" })?.value,
                let length = instant(lengthValue, path: path + ".metadata.duration")?.seconds, length > .zero
            else {
                note(path, "\(clip.label): effect \"\(name)\" has no metadata.duration; ignored")
                continue
            }
            let room = duration - taken.start - taken.end
            guard room > .zero else {
                note(path, "\(clip.label): effect \"\(name)\" has no room left beside the clip's other fades; ignored")
                continue
            }
            let span = min(length, room)
            if fade.fadesIn { taken.start = span } else { taken.end = span }
            var transition: [(key: String, value: JSONValue)] = [
                ("between", .array(fade.fadesIn ? [.null, .number(String(index))] : [.number(String(index)), .null])),
                ("type", .string("dissolve")), ("duration", time(span)), ("handles", .string("hold")),
            ]
            if fade.isPicture { transition.append(("audio", .string("none"))) }
            fades.append(.object(transition))
        }
        return fades
    }
}
