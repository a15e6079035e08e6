/// A track's `transitions`: each names the two adjacent items it joins with `between`.
extension ProjectParser {
    func parseTransitions(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, items: [Item]) -> [Transition]? {
        guard case .array(let elements) = value else {
            log.add(path, "expected an array of transitions, got \(value.kindDescription)")
            return nil
        }
        let parsed = elements.enumerated().map { index, element in
            parseTransition(element, "\(path)[\(index)]", log, items: items)
        }
        guard !parsed.contains(where: { $0 == nil }) else { return nil }
        let transitions = parsed.compactMap { $0 }
        let order = transitions.indices.sorted { transitions[$0].start < transitions[$1].start }
        for (previous, next) in zip(order, order.dropFirst()) where transitions[next].start < transitions[previous].end
        {
            log.add("\(path)[\(next)]", "overlaps \(path)[\(previous)]; shorten one of them")
            return nil
        }
        return order.map { transitions[$0] }
    }

    private func parseTransition(_ value: JSONValue, _ path: String, _ log: DiagnosticLog, items: [Item]) -> Transition?
    {
        guard let object = JSONObjectReader(value, path: path, log: log) else { return nil }
        let kind = object.required("type", JSONField.choice(Transition.Kind.self))
        let pair = object.required("between") { value, path, log -> (Int, Int)? in
            guard case .array(let elements) = value, elements.count == 2,
                let first = JSONField.integer(elements[0], "\(path)[0]", log),
                let second = JSONField.integer(elements[1], "\(path)[1]", log)
            else {
                log.add(path, "expected [outgoing, incoming] item indices, got \(JSONField.describe(value))")
                return nil
            }
            guard items.indices.contains(first), items.indices.contains(second) else {
                log.add(path, "item indices must be from 0 to \(items.count - 1)")
                return nil
            }
            guard items[first].end == items[second].at else {
                log.add(
                    path,
                    "items[\(first)] ends at \(items[first].end) but items[\(second)] starts at \(items[second].at); "
                        + "a transition joins an item to the one starting where it ends")
                return nil
            }
            return (first, second)
        }
        let duration = object.optional("duration", default: nil) { JSONField.time($0, $1, $2).map { Optional($0) } }
        let inOffset = object.optional("inOffset", default: nil) { JSONField.time($0, $1, $2).map { Optional($0) } }
        let outOffset = object.optional("outOffset", default: nil) { JSONField.time($0, $1, $2).map { Optional($0) } }
        let color = object.optional("color", default: RGBColor(red: 0, green: 0, blue: 0), parseColor)
        let direction = object.optional("direction", default: .left, JSONField.choice(Transition.Direction.self))
        let softness = object.optional("softness", default: 0, parseUnitValue)
        let audio = object.optional("audio", default: .equalPower, JSONField.choice(Transition.AudioFade.self))
        let handles = object.optional("handles", default: .required, JSONField.choice(Transition.Handles.self))
        object.rejectUnknownKeys()
        guard let kind, let pair, let duration, let inOffset, let outOffset, let color, let direction, let softness,
            let audio, let handles
        else { return nil }
        let offsets: (Rational, Rational)
        switch (duration, inOffset, outOffset) {
        case (let duration?, nil, nil):
            offsets = (duration / Rational(2), duration / Rational(2))
        case (nil, let before?, let after?):
            offsets = (before, after)
        default:
            log.add(path, "give either \"duration\" (centred on the cut) or both \"inOffset\" and \"outOffset\"")
            return nil
        }
        let (outgoing, incoming) = (items[pair.0], items[pair.1])
        if offsets.0.isNegative || offsets.1.isNegative || offsets.0 + offsets.1 <= .zero {
            log.add(path, "the transition must last longer than 0 s, with no negative offset")
            return nil
        }
        if outgoing.duration < offsets.0 || incoming.duration < offsets.1 {
            log.add(
                path,
                "reaches \(offsets.0) s before and \(offsets.1) s after the cut, past the items it joins "
                    + "(\(outgoing.duration) s and \(incoming.duration) s long)")
            return nil
        }
        var transition = Transition(
            kind: kind, outgoing: pair.0, incoming: pair.1, cut: outgoing.end, inOffset: offsets.0,
            outOffset: offsets.1)
        transition.color = color
        transition.direction = direction
        transition.softness = softness
        transition.audio = audio
        transition.handles = handles == .hold ? .hold : nil
        return transition
    }
}
