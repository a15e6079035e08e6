/// A track's `transitions`: each names the two adjacent items it joins with `between`, or one
/// item and `null` for a fade from or to what lies below the track.
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
        let pair = object.required("between") { value, path, log -> (Int?, Int?)? in
            func side(_ element: JSONValue, _ path: String) -> Int?? {
                if case .null = element { return .some(nil) }
                return JSONField.integer(element, path, log).map { .some($0) }
            }
            guard case .array(let elements) = value, elements.count == 2, let first = side(elements[0], "\(path)[0]"),
                let second = side(elements[1], "\(path)[1]"), first != nil || second != nil
            else {
                log.add(
                    path,
                    "expected [outgoing, incoming] item indices (one may be null, for a fade), got "
                        + JSONField.describe(value))
                return nil
            }
            guard [first, second].allSatisfy({ $0.map(items.indices.contains) ?? true }) else {
                log.add(path, "item indices must be from 0 to \(items.count - 1)")
                return nil
            }
            guard let first, let second else { return (first, second) }
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
        case (let duration?, nil, nil) where pair.0 == nil:
            // A fade in lies within its item: it starts where the item does.
            offsets = (.zero, duration)
        case (let duration?, nil, nil) where pair.1 == nil:
            offsets = (duration, .zero)
        case (let duration?, nil, nil):
            offsets = (duration / Rational(2), duration / Rational(2))
        case (nil, let before?, let after?):
            offsets = (before, after)
        default:
            log.add(path, "give either \"duration\" (centred on the cut) or both \"inOffset\" and \"outOffset\"")
            return nil
        }
        let (outgoing, incoming) = (pair.0.map { items[$0] }, pair.1.map { items[$0] })
        if offsets.0.isNegative || offsets.1.isNegative || offsets.0 + offsets.1 <= .zero {
            log.add(path, "the transition must last longer than 0 s, with no negative offset")
            return nil
        }
        if (outgoing?.duration ?? offsets.0) < offsets.0 || (incoming?.duration ?? offsets.1) < offsets.1 {
            let lengths = [outgoing, incoming].compactMap { $0.map { "\($0.duration) s" } }
            log.add(
                path,
                "reaches \(offsets.0) s before and \(offsets.1) s after the cut, past the items it joins "
                    + "(\(lengths.joined(separator: " and ")) long)")
            return nil
        }
        let cut = outgoing?.end ?? incoming!.at
        // A fade's empty side must be empty: no other item of the track there.
        let empty = pair.0 == nil ? (cut - offsets.0)..<cut : cut..<(cut + offsets.1)
        if pair.0 == nil || pair.1 == nil, !empty.isEmpty,
            let other = items.indices.first(where: {
                $0 != (pair.0 ?? pair.1) && items[$0].at < empty.upperBound && empty.lowerBound < items[$0].end
            })
        {
            log.add(
                path,
                "fades \(pair.0 == nil ? "in" : "out") over \(empty.lowerBound) to \(empty.upperBound) s, where "
                    + "items[\(other)] is; a fade's other side must be empty (or join the two with a transition)")
            return nil
        }
        var transition = Transition(
            kind: kind, outgoing: pair.0, incoming: pair.1, cut: cut, inOffset: offsets.0, outOffset: offsets.1)
        transition.color = color
        transition.direction = direction
        transition.softness = softness
        transition.audio = audio
        transition.handles = handles == .hold ? .hold : nil
        return transition
    }
}
