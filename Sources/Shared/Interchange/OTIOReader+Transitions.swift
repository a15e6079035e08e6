import FarmCore

/// A clip as placed in a farm track, with what a transition over it needs to know.
struct OTIOPlacedClip {
    var label: String
    /// Its timeline start, as written.
    var at: Rational
    var item: JSONValue = .null
    /// Where its media plays from, at what speed, and how much media there is (from the
    /// document's `available_range`; nil when it does not say). Nil for a generated picture, a
    /// freeze or a clip played backwards.
    var media: (start: Rational, speed: Rational, length: Rational?)?

    init(label: String, at: Rational) {
        self.label = label
        self.at = at
    }
}

/// Transitions between clips. An editor plays every transition, holding a clip's edge frame where
/// its media runs short of the span, so each is written with `"handles": "hold"`; where the
/// document shows the media short, a note says so.
extension OTIOReader {
    /// A Transition's offsets, nil (with a problem) when malformed; other types than
    /// `SMPTE_Dissolve` are noted.
    func transitionOffsets(_ object: OTIOObject) -> (in: Rational, out: Rational)? {
        guard let inValue = object.raw("in_offset"), let outValue = object.raw("out_offset") else {
            problem(object.path, "a Transition needs in_offset and out_offset")
            return nil
        }
        guard let inOffset = instant(inValue, path: object.childPath("in_offset")),
            let outOffset = instant(outValue, path: object.childPath("out_offset"))
        else { return nil }
        guard !inOffset.seconds.isNegative, !outOffset.seconds.isNegative else {
            problem(object.path, "\(object.label) has a negative offset")
            return nil
        }
        var type = ""
        if case .string(let text)? = object.raw("transition_type") { type = text }
        if type != "SMPTE_Dissolve" {
            note(object.path, "\(object.label): transition type \"\(type)\" is played as a dissolve")
        }
        return (inOffset.seconds, outOffset.seconds)
    }

    /// The farm transition joining items `outgoing` and `incoming` (their indices in the track),
    /// or, with one of them nil, fading the other from or to what lies below the track (a
    /// transition at a track's edge or next to a gap). `cut` is where the outgoing item ends or
    /// the incoming one starts.
    func transition(
        _ object: OTIOObject, offsets: (in: Rational, out: Rational), cut: Rational,
        outgoing: (index: Int, clip: OTIOPlacedClip)?, incoming: (index: Int, clip: OTIOPlacedClip)?
    ) -> JSONValue {
        if let outgoing, let (start, speed, length) = outgoing.clip.media, let length {
            let end = start + (cut - outgoing.clip.at) * speed
            let short = end + offsets.out * speed - length
            if short > .zero {
                note(
                    object.path,
                    "\(object.label): \(outgoing.clip.label) has \(Self.seconds(short)) less media after its end than "
                        + "the transition needs; its last frame is held there, its sound silent")
            }
        }
        if let incoming, let (start, speed, _) = incoming.clip.media {
            let short = offsets.in * speed - start
            if short > .zero {
                note(
                    object.path,
                    "\(object.label): \(incoming.clip.label) has \(Self.seconds(short)) less media before its start "
                        + "than the transition needs; its first frame is held there, its sound silent")
            }
        }
        let side = { (placed: (index: Int, clip: OTIOPlacedClip)?) -> JSONValue in
            placed.map { .number(String($0.index)) } ?? .null
        }
        return .object([
            ("between", .array([side(outgoing), side(incoming)])),
            ("type", .string("dissolve")), ("inOffset", time(offsets.in)), ("outOffset", time(offsets.out)),
            ("handles", .string("hold")),
        ])
    }
}
