import FarmCore
import Foundation

/// Clips as farm items: their media, time effects, markers and the transitions between them.
extension OTIOReader {
    /// The farm item for a clip placed at timeline time `at`; nil (with a problem or a note)
    /// when it cannot be drawn.
    func clip(_ clip: OTIOObject, at: Rational, duration: Rational, window: Range<Rational>?, kind: String)
        -> OTIOPlacedClip?
    {
        notes(markersOf: clip)
        // OTIO accepts them (an EDL's zero-length event, a marker-like clip); nothing shows.
        guard duration > .zero else {
            note(clip.path, "\(clip.label) lasts no time (a zero-length clip); dropped")
            return nil
        }
        guard let reference = mediaReference(of: clip) else { return nil }
        let trimmed = trimRange(of: clip)
        let available = reference.raw("available_range").flatMap { value -> OTIORange? in
            value == .null ? nil : range(value, path: reference.childPath("available_range"))
        }
        var content: [(key: String, value: JSONValue)]
        switch reference.schema.name {
        case "ExternalReference":
            guard let path = mediaPath(reference, clip: clip) else { return nil }
            content = [("asset", .string(assetID(for: path)))]
        case "GeneratorReference":
            guard let color = solidColor(reference) else {
                note(
                    clip.path,
                    "\(clip.label): generator \(Self.show(reference.raw("generator_kind") ?? .null)) is not one "
                        + "the farm draws; left as a gap"
                )
                return nil
            }
            content = [("solid", .string(color))]
        case "MissingReference":
            note(clip.path, "\(clip.label) has no media (MissingReference); left as a gap")
            return nil
        case "ImageSequenceReference":
            guard let id = imageSequenceAsset(reference, clip: clip) else { return nil }
            content = [("asset", .string(id))]
        default:
            problem(reference.path, "unknown media reference \(reference.schema.text)")
            return nil
        }
        var at = at
        var duration = duration
        var sourceStart = (trimmed?.start ?? available?.start ?? .zero) - (available?.start ?? .zero)
        let timing = timeEffects(of: clip)
        if let window {
            if at < window.lowerBound {
                let cut = window.lowerBound - at
                sourceStart = sourceStart + cut * timing.speed
                duration = duration - cut
                at = window.lowerBound
            }
            duration = Rational.min(duration, window.upperBound - at)
            guard duration > .zero else { return nil }
        }
        if content.first?.key == "asset" && sourceStart.isNegative {
            problem(
                clip.path,
                "\(clip.label) starts \(Self.seconds(.zero - sourceStart)) before its media's available range")
            return nil
        }
        // Rounded where it starts and ends, not by its length: neighbours still meet exactly.
        let (start, stop) = (TimeGrid.held(at), TimeGrid.held(at + duration))
        content += [("at", time(start)), ("duration", time(stop - start))]
        end = Rational.max(end, at + duration)
        var placed = OTIOPlacedClip(label: clip.label, at: start)
        if content.first?.key == "asset" {
            if timing.freeze == nil && !timing.speed.isNegative {
                placed.media = (sourceStart, timing.speed, available?.duration)
            }
            if let frozen = timing.freeze {
                content.append(("freeze", time(sourceStart + frozen)))
            } else if timing.speed.isNegative {
                let length = duration * (Rational.zero - timing.speed)
                content.append(("source", .object([("start", time(sourceStart)), ("duration", time(length))])))
                content.append(("reverse", .bool(true)))
            } else {
                var source: [(key: String, value: JSONValue)] = [("start", time(sourceStart))]
                if timing.speed != .one { source.append(("duration", time(duration * timing.speed))) }
                content.append(("source", .object(source)))
            }
            // An OTIO video track carries pictures only: the sound is on its audio tracks.
            if kind == "video" { content.append(("muted", .bool(true))) }
        }
        if kind == "video" && content.first?.key == "asset" { content.append(("fit", .string("contain"))) }
        if kind == "video" && content.first?.key == "asset", let grade = grade(of: clip) {
            content.append(("grade", grade))
        }
        placed.item = .object(content)
        return placed
    }

    /// Speed from `LinearTimeWarp`s (their scalars multiply) and a freeze from `FreezeFrame`;
    /// every other effect but a fade (`effectFades`) is noted.
    func timeEffects(of clip: OTIOObject) -> (speed: Rational, freeze: Rational?) {
        var speed = Rational.one
        var freeze: Rational?
        for (index, value) in clip.array("effects").enumerated() {
            guard let effect = OTIOObject(value, path: clip.childPath("effects[\(index)]"), reader: self) else {
                continue
            }
            switch effect.schema.name {
            case "FreezeFrame":
                freeze = .zero
            case "LinearTimeWarp":
                guard let scalarValue = effect.raw("time_scalar"), let scalar = OTIOTime.number(scalarValue) else {
                    problem(effect.childPath("time_scalar"), "a LinearTimeWarp needs a numeric time_scalar")
                    continue
                }
                if scalar == .zero { freeze = .zero } else { speed = speed * scalar }
            default:
                // Fades placed with the track's transitions (`effectFades`).
                if !Self.isEffectFade(effect) { noteUnrendered(effect, of: clip) }
            }
        }
        return (speed, freeze)
    }

    /// Notes an effect the farm does not render, on a clip, a track or a stack, by its
    /// `effect_name` (its schema's name when it has none).
    func noteUnrendered(_ effect: OTIOObject, of owner: OTIOObject) {
        // Its kind (`effect_name`), else its name (Avid's adapter leaves the kind empty and
        // names the effect: "Audio Pan"), else its schema.
        var name = effect.name.isEmpty ? effect.schema.name : effect.name
        if case .string(let effectName)? = effect.raw("effect_name"), !effectName.isEmpty { name = effectName }
        note(effect.path, "\(owner.label): effect \"\(name)\" is not rendered by the farm; ignored")
    }

    func notes(markersOf object: OTIOObject) {
        for (index, value) in object.array("markers").enumerated() {
            let marker = OTIOObject(value, path: object.childPath("markers[\(index)]"), reader: self)
            let label = marker.map { $0.name.isEmpty ? "a marker" : "marker \"\($0.name)\"" } ?? "a marker"
            note(
                object.childPath("markers[\(index)]"),
                "\(object.label): \(label) is not carried over (the farm has no markers)")
        }
    }
}
