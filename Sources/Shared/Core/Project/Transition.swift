/// A transition between two adjacent items of one track, straddling the cut as editors and
/// OpenTimelineIO model it: it starts `inOffset` before the cut and ends `outOffset` after it.
/// Over that span the outgoing item plays on past its end and the incoming one starts early, so
/// both items' media must reach into the span. With one side absent it is a fade: the item
/// comes from, or goes to, what lies below the track (black on the lowest), as an editor plays
/// a transition at a track's edge or next to a gap.
public struct Transition: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
        /// The incoming picture fades in over the outgoing one.
        case dissolve
        /// Fade to `color` by the middle, then from it.
        case dip
        /// An edge sweeps across in `direction`, revealing the incoming picture behind it.
        case wipe
        /// The incoming picture pushes the outgoing one out in `direction`.
        case push
        /// The incoming picture slides in over the outgoing one in `direction`.
        case slide
    }

    /// The way an edge or a picture travels.
    public enum Direction: String, Sendable, Codable, Hashable, CaseIterable {
        case left, right, up, down
    }

    /// How the two items' sound crosses over the same span.
    public enum AudioFade: String, Sendable, Codable, Hashable, CaseIterable {
        /// Gains cos and sin of the quarter turn: loudness stays even for unrelated sounds.
        case equalPower = "equal-power"
        /// Gains 1 - p and p: sums to unity for the same sound on both sides.
        case linear
        /// Both play at full volume (a hard cut in the sound).
        case none
    }

    /// What shows where an item's media does not reach into the span (`"handles"`).
    public enum Handles: String, Sendable, Codable, Hashable, CaseIterable {
        /// The media must cover the span: a project where it does not is refused.
        case required
        /// The edge frame is held (the first before the media starts, the last after it ends)
        /// and the sound is silent there, as editors play a transition whose media runs short.
        case hold
    }

    public var kind: Kind
    /// Indices into the track's items; nil for the empty side of a fade.
    public var outgoing: Int?
    public var incoming: Int?
    /// The cut: where the outgoing item ends and the incoming one starts.
    public var cut: Rational
    public var inOffset: Rational
    public var outOffset: Rational
    public var color: RGBColor
    public var direction: Direction
    /// Wipe only: the width of the soft edge, a fraction of the picture.
    public var softness: Double
    public var audio: AudioFade
    /// Nil means `.required`. Optional so that a chunk's key (`ChunkKeys`) holds it only where
    /// set: it changes no byte of a render (without it, a project it matters to is refused).
    public var handles: Handles?

    public init(kind: Kind, outgoing: Int?, incoming: Int?, cut: Rational, inOffset: Rational, outOffset: Rational) {
        self.kind = kind
        self.outgoing = outgoing
        self.incoming = incoming
        self.cut = cut
        self.inOffset = inOffset
        self.outOffset = outOffset
        color = RGBColor(red: 0, green: 0, blue: 0)
        direction = .left
        softness = 0
        audio = .equalPower
    }

    public var start: Rational { cut - inOffset }
    public var end: Rational { cut + outOffset }

    public func contains(_ t: Rational) -> Bool { start <= t && t < end }

    /// 0 at the first instant of the span, rising linearly to 1 at its end.
    public func progress(at t: Rational) -> Double { ((t - start) / (end - start)).seconds }
}

extension Track {
    /// How far each item plays beyond its own range because transitions straddle its edges,
    /// by item index: one pass over the transitions, however many items ask.
    public var reaches: [(before: Rational, after: Rational)] {
        var reaches = [(before: Rational, after: Rational)](repeating: (.zero, .zero), count: items.count)
        for transition in transitions {
            if let incoming = transition.incoming { reaches[incoming].before = transition.inOffset }
            if let outgoing = transition.outgoing { reaches[outgoing].after = transition.outOffset }
        }
        return reaches
    }
}

extension Item {
    /// The same item starting `before` earlier and ending `after` later on the timeline, its
    /// media running on at its speed on both sides; keyframes keep their timeline positions.
    public func extended(before: Rational, after: Rational) -> Item {
        guard before != .zero || after != .zero else { return self }
        var item = self
        item.at = at - before
        item.duration = duration + before + after
        item.sourceStart = sourceStart - before * speed
        item.sourceDuration = item.duration * speed
        item.frame = frame.shifted(by: before)
        item.crop = crop.shifted(by: before)
        item.opacity = opacity.shifted(by: before)
        item.volume = volume.shifted(by: before)
        item.pan = pan?.shifted(by: before)
        item.timeMap = timeMap.map {
            TimeMap(keys: $0.keys.map { TimeMap.Key(time: $0.time + before, source: $0.source) })
        }
        return item
    }
}

extension Animated {
    /// The same curve with every key `offset` later.
    public func shifted(by offset: Rational) -> Animated {
        guard case .keys(let keys) = self, offset != .zero else { return self }
        return .keys(keys.map { Keyframe(time: $0.time + offset, value: $0.value, interpolation: $0.interpolation) })
    }
}
