import FarmCore

/// Avid's "Audio Pan" effect on an audio track, as otio-aaf-adapter writes it: the effect's
/// `metadata.AAF.Parameters.Pan`, a number from 0 (left) through 0.5 (centre) to 1 (right), or
/// keyframes `keyframe_values` of [position, value] with each position a fraction of the track's
/// length. Each item of the track gets the part of that curve it spans as its `pan`, -1 to 1
/// (a centred item none: it sounds the same).
extension OTIOReader {
    /// A track's pan curve: (time from the track's start, farm pan) in time order.
    typealias PanCurve = [(time: Rational, pan: Double)]

    /// Whether `effect` is an Audio Pan the farm reads, on `owner`: `audioPan` renders it.
    static func isAudioPan(_ effect: OTIOObject, of owner: OTIOObject) -> Bool {
        guard case .string("Audio")? = owner.raw("kind") else { return false }
        guard owner.schema.name == "Track", effect.name == "Audio Pan" else { return false }
        return panCurve(of: effect, length: Rational(1)) != nil
    }

    /// The pan curve of `track`'s Audio Pan effect over `length`, nil without one.
    func audioPan(of track: OTIOObject, length: Rational) -> PanCurve? {
        for (index, value) in track.array("effects").enumerated() {
            // Only well-formed effects: `framed` has already reported any other.
            guard case .object(let members) = value, members.contains(where: { $0.key == "OTIO_SCHEMA" }),
                let effect = OTIOObject(value, path: track.childPath("effects[\(index)]"), reader: self),
                Self.isAudioPan(effect, of: track)
            else { continue }
            return Self.panCurve(of: effect, length: length)
        }
        return nil
    }

    /// The effect's `Pan` as a curve over `length`: a constant, or its keys in time order (of
    /// two at one time, the later written), nil when it is neither.
    private static func panCurve(of effect: OTIOObject, length: Rational) -> PanCurve? {
        guard let parameter = panParameter(effect) else { return nil }
        let farmPan = { (value: Rational) in Swift.min(1, Swift.max(-1, 2 * value.seconds - 1)) }
        if let constant = OTIOTime.number(parameter) { return [(.zero, farmPan(constant))] }
        guard case .object(let members) = parameter,
            case .array(let keys)? = members.first(where: { $0.key == "keyframe_values" })?.value
        else { return nil }
        var curve: PanCurve = []
        for key in keys {
            guard case .array(let pair) = key, pair.count == 2, let position = OTIOTime.number(pair[0]),
                let value = OTIOTime.number(pair[1])
            else { return nil }
            let time = position * length
            curve.removeAll { $0.time == time }
            curve.append((time, farmPan(value)))
        }
        return curve.isEmpty ? nil : curve.sorted { $0.time < $1.time }
    }

    /// `item` of a track whose start is at `origin` on the timeline, with the part of `curve` it
    /// spans as its `pan`: its value at the item's start, the keys inside it, its value at the
    /// end, all linear as Avid's keys are.
    func panned(_ item: JSONValue, origin: Rational, curve: PanCurve) -> JSONValue {
        guard case .object(var members) = item else { return item }
        let field = { (key: String) -> Rational? in
            guard case .string(let text)? = members.first(where: { $0.key == key })?.value else { return nil }
            return Rational(parsing: text)
        }
        guard let at = field("at"), let duration = field("duration") else { return item }
        let start = at - origin
        var keys = [(Rational.zero, Self.pan(of: curve, at: start))]
        keys += curve.filter { $0.time > start && $0.time < start + duration }.map { ($0.time - start, $0.pan) }
        keys.append((duration, Self.pan(of: curve, at: start + duration)))
        // Times as the project holds them, each later than the one before (keys a flick apart
        // land on one time).
        var held: [(JSONValue, Rational, Double)] = []
        for (moment, value) in keys {
            let written = time(moment)
            guard case .string(let text) = written, let exact = Rational(parsing: text) else { continue }
            if let last = held.last, !(last.1 < exact) { continue }
            held.append((written, exact, value))
        }
        if keys.allSatisfy({ $0.1 == 0 }) { return item }
        let pan: JSONValue =
            keys.allSatisfy({ $0.1 == keys[0].1 })
            ? .number(String(keys[0].1))
            : .object([("keys", .array(held.map { .array([$0.0, .number(String($0.2))]) }))])
        members.append(("pan", pan))
        return .object(members)
    }

    private static func pan(of curve: PanCurve, at time: Rational) -> Double {
        guard let after = curve.firstIndex(where: { $0.time > time }) else { return curve.last!.pan }
        guard after > 0 else { return curve[0].pan }
        let (a, b) = (curve[after - 1], curve[after])
        return a.pan + (b.pan - a.pan) * ((time - a.time) / (b.time - a.time)).seconds
    }

    private static func panParameter(_ effect: OTIOObject) -> JSONValue? {
        guard case .object(let metadata)? = effect.raw("metadata"),
            case .object(let aaf)? = metadata.first(where: { $0.key == "AAF" })?.value,
            case .object(let parameters)? = aaf.first(where: { $0.key == "Parameters" })?.value
        else { return nil }
        return parameters.first(where: { $0.key == "Pan" })?.value
    }
}
