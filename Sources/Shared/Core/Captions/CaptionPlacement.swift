/// An item that places a caption file on the timeline: burned into the pictures in `style`,
/// written as a subtitle stream of the output, or both.
public struct CaptionPlacement: Sendable, Codable, Hashable {
    /// The caption asset's id.
    public var asset: String
    public var burnIn: Bool
    public var soft: Bool
    /// ISO 639-2 code of the soft stream ("eng", "ara", "jpn"); "und" when not said.
    public var language: String
    /// Font, size, colours, outline, shadow and box of burned-in text; its `text` is unused.
    public var style: Title
    /// The margin kept clear on every side of the item's frame, a fraction of its width and
    /// height: 0.1 is the title-safe area.
    public var safeArea: Double

    public init(asset: String, burnIn: Bool, soft: Bool, language: String, style: Title, safeArea: Double) {
        self.asset = asset
        self.burnIn = burnIn
        self.soft = soft
        self.language = language
        self.style = style
        self.safeArea = safeArea
    }

    /// The style caption text is drawn in unless the project says otherwise: white, a black
    /// outline, centred at the bottom of the safe area.
    public static let defaultStyle: Title = {
        var style = Title(text: "", font: "DejaVu Sans", size: 48)
        style.verticalAlignment = .bottom
        style.outline = Title.Outline(width: 2, color: RGBColor(red: 0, green: 0, blue: 0))
        return style
    }()
}

/// A subtitle stream of the output: each cue's text and the output frames it is shown on.
public struct SubtitleTrack: Sendable, Hashable {
    public struct Cue: Sendable, Hashable {
        public var text: String
        /// `[first frame shown, last frame shown + 1)`.
        public var frames: Range<Int64>

        public init(text: String, frames: Range<Int64>) {
            self.text = text
            self.frames = frames
        }
    }

    /// ISO 639-2 code.
    public var language: String
    /// Ordered by first frame.
    public var cues: [Cue]

    public init(language: String, cues: [Cue]) {
        self.language = language
        self.cues = cues
    }
}

extension Project {
    /// One subtitle stream per video track holding items with `soft` set, its cues from all of
    /// them (cut to `frames`, which a file made of them starts with), its language the first
    /// such item's.
    /// `captions` holds each caption asset's cues.
    public func subtitleTracks(captions: [String: [CaptionCue]], frames: Range<Int64>? = nil) -> [SubtitleTrack] {
        let window = frames ?? 0..<frameCount
        return tracks.compactMap { track -> SubtitleTrack? in
            let placed = track.items.compactMap { item -> (Item, CaptionPlacement)? in
                guard case .captions(let placement) = item.content, placement.soft else { return nil }
                return (item, placement)
            }
            guard let language = placed.first?.1.language else { return nil }
            var cues: [SubtitleTrack.Cue] = []
            for (item, placement) in placed {
                let texts = captions[placement.asset] ?? []
                for run in CaptionSchedule(item: item, cues: texts, fps: output.fps).runs() {
                    let start = max(run.frames.lowerBound, window.lowerBound)
                    let end = min(run.frames.upperBound, window.upperBound)
                    guard start < end else { continue }
                    cues.append(SubtitleTrack.Cue(text: texts[run.cue].text, frames: start..<end))
                }
            }
            cues.sort { $0.frames.lowerBound < $1.frames.lowerBound }
            return SubtitleTrack(language: language, cues: cues)
        }
    }
}
