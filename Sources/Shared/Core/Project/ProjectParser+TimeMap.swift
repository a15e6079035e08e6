/// Time remapping on an item: `timeMap` keys, a `freeze` at one media time, or `reverse`.
extension ProjectParser {
    /// The item's time map, nil when it has none; `valid` is false after a diagnostic.
    func parseTimeMap(
        _ object: JSONObjectReader, log: DiagnosticLog, duration: Rational?,
        source: (start: Rational, duration: Rational)?,
        fps: Rational
    ) -> (valid: Bool, map: TimeMap?) {
        let given = ["timeMap", "freeze", "reverse"].filter { object.has($0) }
        guard !given.isEmpty else { return (true, nil) }
        guard given.count == 1 else {
            log.add(object.path, "has \(given.map { "\"\($0)\"" }.joined(separator: " and ")); use one of them")
            return (false, nil)
        }
        if given[0] != "reverse", object.has("source") {
            log.add(object.childPath(given[0]), "gives the media times itself; remove \"source\"")
            return (false, nil)
        }
        switch given[0] {
        case "freeze":
            guard let time = object.required("freeze", JSONField.time) else { return (false, nil) }
            guard !time.isNegative else {
                log.add(object.childPath("freeze"), "must be >= 0 (got \(time))")
                return (false, nil)
            }
            return (true, TimeMap(keys: [TimeMap.Key(time: .zero, source: time)]))
        case "reverse":
            guard let reverse = object.required("reverse", JSONField.bool) else { return (false, nil) }
            guard reverse, let duration, let source else { return (reverse ? false : true, nil) }
            // Frame k of the item shows the media frame k before the range's end, so the first
            // frame is the range's last and the last is its first (media time shows the frame
            // at or before it).
            let frame = Rational(1) / fps
            guard frame < duration else {
                log.add(object.childPath("reverse"), "the item must last longer than one frame to play backwards")
                return (false, nil)
            }
            let speed = source.duration / duration
            return (
                true,
                TimeMap(keys: [
                    TimeMap.Key(time: .zero, source: source.start + source.duration - frame * speed),
                    TimeMap.Key(time: duration - frame, source: source.start),
                ])
            )
        default:
            let keys = object.required("timeMap") { value, path, log -> [TimeMap.Key]? in
                guard case .array(let elements) = value, !elements.isEmpty else {
                    log.add(path, "expected a non-empty array of [item time, media time] pairs")
                    return nil
                }
                var keys: [TimeMap.Key] = []
                for (index, element) in elements.enumerated() {
                    let keyPath = "\(path)[\(index)]"
                    guard case .array(let pair) = element, pair.count == 2,
                        let time = JSONField.time(pair[0], "\(keyPath)[0]", log),
                        let source = JSONField.time(pair[1], "\(keyPath)[1]", log)
                    else {
                        log.add(keyPath, "expected [item time, media time]")
                        return nil
                    }
                    if time.isNegative || source.isNegative {
                        log.add(keyPath, "times must be >= 0")
                        return nil
                    }
                    if let previous = keys.last, time <= previous.time {
                        log.add("\(keyPath)[0]", "item times must increase (\(time) after \(previous.time))")
                        return nil
                    }
                    keys.append(TimeMap.Key(time: time, source: source))
                }
                return keys
            }
            return keys.map { (true, TimeMap(keys: $0)) } ?? (false, nil)
        }
    }
}
