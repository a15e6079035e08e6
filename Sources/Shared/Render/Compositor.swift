import FarmCore
import FarmMedia
import FarmText

/// Renders output frame `n` of a project: for each video track in z-order, the item active at
/// `n / fps`, cropped, scaled into its rectangle with its fit mode, and blended with its opacity
/// and alpha over the background.
///
/// Deterministic: a frame's bytes depend only on the project and `n`, never on which frames were
/// rendered before, how many threads decode, or where a chunk starts. All arithmetic on pixels
/// is integer; all times are exact.
///
/// Not thread-safe: one compositor per rendering thread.
public final class Compositor {
    public let project: Project
    private let media: [String: MediaInfo]
    private let reads: MediaReads?
    private let decoderThreads: Int
    private let canvas: Picture
    /// SDR colours (the background, dips' colours) as canvas samples, by colour.
    private var colourSamples: [RGBColor: SampleColor] = [:]
    /// Turns the project's (SDR) colours into the canvas's samples; nil on an SDR canvas.
    private let colourConverter: TransferConverter?
    /// Visible video tracks bottom to top, items sorted by time.
    private let layers: [VisibleTrack]
    private var sources: [ItemKey: LayerSource] = [:]
    private var generatedPictures: [ItemKey: GeneratedPicture] = [:]
    /// Each caption item's burn-in: its schedule, and the text its picture was painted with.
    private var captionLayers: [ItemKey: CaptionLayer] = [:]
    private let captions: [String: [CaptionCue]]
    /// Each graded media item's grades (its own, then its track's), compiled for the canvas.
    private let itemGrades: [ItemKey: GradeProgram]
    /// The output's grade, applied to the composited canvas.
    private let outputGrade: GradeProgram?
    private lazy var outputGrader = PictureGrader()

    /// Two canvas-sized pictures a transition draws its items on; made on first use.
    private lazy var transitionPictures = (
        outgoing: canvas.sameShape(),
        incoming: canvas.sameShape()
    )
    /// When each item last shows: its end, or later when a transition straddles it.
    private let lastShown: [ItemKey: Rational]

    struct VisibleTrack {
        var opacity: Double
        var transform: Transform
        var items: [(key: ItemKey, item: Item)]
        var transitions: [Transition]

        func item(_ index: Int) -> (key: ItemKey, item: Item) { items.first { $0.key.item == index }! }
    }

    struct ItemKey: Hashable {
        var track: Int
        var item: Int
    }

    public init(loaded: LoadedProject, decoderThreads: Int = 1) {
        project = loaded.project
        media = loaded.media
        reads = loaded.reads
        captions = loaded.captions
        self.decoderThreads = decoderThreads
        let range = project.output.dynamicRange
        canvas = Picture(width: project.output.width, height: project.output.height, depth: range.depth)
        colourConverter = range == .sdr ? nil : TransferConverter(from: .sdr, to: range)
        layers = project.tracks.enumerated().filter { $0.element.kind == .video && !$0.element.hidden }.map {
            trackIndex, track in
            let items = track.items.enumerated().map { (key: ItemKey(track: trackIndex, item: $0), item: $1) }
            return VisibleTrack(
                opacity: track.opacity, transform: track.transform, items: items.sorted { $0.item.at < $1.item.at },
                transitions: track.transitions)
        }
        var lastShown: [ItemKey: Rational] = [:]
        for (trackIndex, track) in project.tracks.enumerated() {
            let reaches = track.reaches
            for (index, item) in track.items.enumerated() {
                lastShown[ItemKey(track: trackIndex, item: index)] = item.end + reaches[index].after
            }
        }
        self.lastShown = lastShown
        var itemGrades: [ItemKey: GradeProgram] = [:]
        for (trackIndex, track) in project.tracks.enumerated() where track.kind == .video {
            for (index, item) in track.items.enumerated() {
                itemGrades[ItemKey(track: trackIndex, item: index)] = GradeProgram(
                    [item.grade, track.grade].compactMap { $0 }, luts: loaded.luts, depth: range.depth)
            }
        }
        self.itemGrades = itemGrades
        outputGrade = project.output.grade.flatMap { GradeProgram([$0], luts: loaded.luts, depth: range.depth) }
    }

    public var width: Int { canvas.width }
    /// Bits a sample of the pictures `render` returns: 8, or 10 for an HDR output.
    public var depth: Int { canvas.depth }
    public var height: Int { canvas.height }

    /// Composites frame `n` and returns the canvas, which the next call overwrites.
    @discardableResult
    public func render(frame n: Int64) throws -> Picture {
        let time = project.output.time(ofFrame: n)
        canvas.fill(try sample(of: project.output.background))
        // Burned-in captions are text for the viewer, not picture: drawn over the graded
        // frame, in track order, so an output LUT or CDL never tints them.
        var captionItems: [(key: ItemKey, item: Item, layer: VisibleTrack)] = []
        for layer in layers {
            if let transition = layer.transitions.first(where: { $0.contains(time) }) {
                try drawTransition(transition, track: layer, at: time)
                continue
            }
            guard let (key, item) = layer.items.first(where: { $0.item.at <= time && time < $0.item.end }) else {
                continue
            }
            if outputGrade != nil, case .captions = item.content {
                captionItems.append((key, item, layer))
                continue
            }
            try draw(item, key: key, at: time, track: layer, on: canvas)
        }
        if let outputGrade { try outputGrader.grade(canvas, by: outputGrade) }
        for (key, item, layer) in captionItems { try draw(item, key: key, at: time, track: layer, on: canvas) }
        releaseSources(before: time)
        return canvas
    }

    /// Draws both items of a transition over copies of the canvas below the track, then mixes
    /// the copies back: over any background, each item keeps its own opacity and alpha. A fade's
    /// empty side draws nothing: its copy is the canvas below.
    private func drawTransition(_ transition: Transition, track: VisibleTrack, at time: Rational) throws {
        let progress = transition.progress(at: time)
        let mask = TransitionMask(transition, progress: progress, width: canvas.width, height: canvas.height)
        let (first, second) = transitionPictures
        for (index, picture, shift) in [
            (transition.outgoing, first, mask.outgoingShift), (transition.incoming, second, mask.incomingShift),
        ] {
            picture.copy(from: canvas)
            guard let index else { continue }
            let (key, item) = track.item(index)
            try draw(
                item, key: key, at: time, track: track, on: picture,
                shift: .translation(Double(shift.x), Double(shift.y)))
        }
        guard transition.kind == .dip else {
            canvas.mix(first, second, weights: mask.weights, alongRows: mask.alongRows)
            return
        }
        // To the colour by the middle, then from it.
        let fromColor = progress >= 0.5
        canvas.copy(from: fromColor ? second : first)
        let strength = fromColor ? 2 - 2 * progress : 2 * progress
        canvas.fill(
            PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height), with: try sample(of: transition.color),
            alpha: Int((strength * 255).rounded()))
    }

    /// An SDR colour as samples of the canvas; converted once per colour (a dip's colour is
    /// asked for on every frame of the dip).
    private func sample(of color: RGBColor) throws -> SampleColor {
        if let known = colourSamples[color] { return known }
        let sample = try colourConverter?.sample(of: color) ?? SampleColor(YUVColor(color))
        colourSamples[color] = sample
        return sample
    }

    private func draw(
        _ item: Item, key: ItemKey, at time: Rational, track: VisibleTrack, on target: Picture,
        shift: AffineTransform = .identity
    ) throws {
        let local = time - item.at
        let opacity = Int((item.opacity.value(at: local) * track.opacity * 255).rounded())
        guard opacity > 0 else { return }
        let frame = item.frame.value(at: local)
        if case .captions(let placement) = item.content {
            try drawCaptions(
                placement, key: key, item: item, frame: frame, at: time, track: track, opacity: opacity, on: target,
                shift: shift)
            return
        }
        guard case .media(let id) = item.content else {
            try drawGenerated(
                item.content, key: key, item: item, frame: frame, at: time, track: track, opacity: opacity,
                on: target, shift: shift)
            return
        }
        guard let info = media[id], let asset = project.assets[id] else { return }
        let sourceTime = item.sourceTime(at: time)
        if item.pastEnd == .black, let length = info.duration, sourceTime >= length {
            let black = ItemContent.solid(RGBColor(red: 0, green: 0, blue: 0))
            try drawGenerated(
                black, key: key, item: item, frame: frame, at: time, track: track, opacity: opacity, on: target,
                shift: shift)
            return
        }
        let source =
            try sources[key]
            ?? LayerSource(
                path: asset.path, info: info, canvas: project.output.dynamicRange, decoderThreads: decoderThreads,
                reads: reads, grade: itemGrades[key])
        sources[key] = source
        let (image, identity) = try source.image(at: sourceTime)
        guard
            let geometry = LayerGeometry(
                sourceWidth: image.width, sourceHeight: image.height, canvasWidth: canvas.width,
                canvasHeight: canvas.height, crop: item.crop.value(at: local), frame: frame, fit: item.fit,
                pixelAspect: Double(info.pixelAspect.numerator) / Double(info.pixelAspect.denominator))
        else { return }
        try place(
            geometry, matrix: matrix(item, track: track, at: time, box: geometry.destination).followed(by: shift),
            opacity: opacity, on: target,
            direct: image.isWorkingFormat(depth: canvas.depth) && source.grade == nil ? image : nil
        ) { width, height in
            var sized = geometry
            sized.destination = PixelRect(x: 0, y: 0, width: width, height: height)
            return try source.scaledPicture(image, identity: identity, geometry: sized)
        }
    }

    /// The cues shown at `time` (the rule in `CaptionSchedule`), as one title in the item's
    /// frame less its safe area; painted again only when the text changes.
    private func drawCaptions(
        _ placement: CaptionPlacement, key: ItemKey, item: Item, frame: Rect, at time: Rational, track: VisibleTrack,
        opacity: Int, on target: Picture, shift: AffineTransform
    ) throws {
        guard placement.burnIn else { return }
        let layer =
            captionLayers[key]
            ?? CaptionLayer(
                schedule: CaptionSchedule(
                    item: item, cues: captions[placement.asset] ?? [], fps: project.output.fps))
        captionLayers[key] = layer
        let frameIndex = (time * project.output.fps).floor
        let shown = layer.schedule.cues(onFrame: frameIndex)
        guard !shown.isEmpty else { return }
        let text = shown.map { layer.schedule.cues[$0].text }.joined(separator: "\n")
        if layer.text != text || generatedPictures[key] == nil {
            var title = placement.style
            title.text = text
            title.font = FontResolver.file(for: title.font, covering: text) ?? title.font
            generatedPictures[key] = GeneratedPicture(.title(title), canvas: project.output.dynamicRange)
            layer.text = text
        }
        let margin = placement.safeArea
        let safe = Rect(
            x: frame.x + frame.width * margin, y: frame.y + frame.height * margin,
            width: frame.width * (1 - 2 * margin), height: frame.height * (1 - 2 * margin))
        try drawGenerated(
            item.content, key: key, item: item, frame: safe, at: time, track: track, opacity: opacity, on: target,
            shift: shift)
    }

    private func drawGenerated(
        _ content: ItemContent, key: ItemKey, item: Item, frame: Rect, at time: Rational, track: VisibleTrack,
        opacity: Int, on target: Picture, shift: AffineTransform
    ) throws {
        guard
            let geometry = LayerGeometry(
                sourceWidth: canvas.width, sourceHeight: canvas.height, canvasWidth: canvas.width,
                canvasHeight: canvas.height, crop: .unit, frame: frame, fit: .stretch)
        else { return }
        let generated = generatedPictures[key] ?? GeneratedPicture(content, canvas: project.output.dynamicRange)
        generatedPictures[key] = generated
        let matrix = matrix(item, track: track, at: time, box: geometry.destination).followed(by: shift)
        let frameWidth = Double(geometry.destination.width)
        try place(geometry, matrix: matrix, opacity: opacity, on: target) {
            try generated.picture(width: $0, height: $1, scale: Double($0) / frameWidth)
        }
    }

    /// The item's transform, then its track's, for the layer placed on `box`.
    private func matrix(_ item: Item, track: VisibleTrack, at time: Rational, box: PixelRect) -> AffineTransform {
        let canvasSize = (width: Double(canvas.width), height: Double(canvas.height))
        let layerBox = (x: Double(box.x), y: Double(box.y), width: Double(box.width), height: Double(box.height))
        let itemMatrix = item.transform.matrix(at: time - item.at, box: layerBox, canvas: canvasSize)
        let trackMatrix = track.transform.matrix(
            at: time, box: (0, 0, canvasSize.width, canvasSize.height), canvas: canvasSize)
        return itemMatrix.followed(by: trackMatrix)
    }

    /// Draws a placed layer: as it is, moved and stretched on the even-pixel grid when the
    /// transform keeps it upright (the fast path), or resampled once through the transform.
    /// `picture(width, height)` gives the layer scaled to that size; `direct` is the layer itself
    /// when it can be blended without scaling.
    private func place(
        _ geometry: LayerGeometry, matrix: AffineTransform, opacity: Int, on target: Picture,
        direct: SourceImage? = nil,
        picture: (Int, Int) throws -> Picture
    ) throws {
        var geometry = geometry
        if matrix.isAxisAligned {
            if matrix != .identity {
                let box = geometry.destination
                let (left, top) = matrix.apply(Double(box.x), Double(box.y))
                let (right, bottom) = matrix.apply(Double(box.x + box.width), Double(box.y + box.height))
                geometry.destination = LayerGeometry.snapped(
                    Rect(x: left, y: top, width: right - left, height: bottom - top), width: 1, height: 1)
            }
            let destination = geometry.destination
            guard destination.width >= 2, destination.height >= 2,
                let visible = destination.intersection(width: canvas.width, height: canvas.height)
            else { return }
            let (offsetX, offsetY) = (visible.x - destination.x, visible.y - destination.y)
            if let direct, geometry.source.width == destination.width, geometry.source.height == destination.height {
                target.draw(
                    direct, sourceX: geometry.source.x + offsetX, sourceY: geometry.source.y + offsetY, into: visible,
                    opacity: opacity)
            } else {
                let scaled = try picture(destination.width, destination.height)
                target.draw(
                    SourceImage(picture: scaled), sourceX: offsetX, sourceY: offsetY, into: visible, opacity: opacity)
            }
            return
        }
        // Resampled once at the size the transform shows it (so shrinking filters well), then
        // turned and moved bilinearly.
        let box = geometry.destination
        let stretch = matrix.axisStretch
        func size(_ length: Int, _ factor: Double) -> Int {
            Swift.max(2, Swift.min(8192, Int((Double(length) * factor / 2).rounded()) * 2))
        }
        let (width, height) = (size(box.width, stretch.x), size(box.height, stretch.y))
        guard width * height <= 64 * canvas.width * canvas.height else { return }
        let layer = try picture(width, height)
        let toCanvas = AffineTransform.scale(Double(box.width) / Double(width), Double(box.height) / Double(height))
            .followed(by: .translation(Double(box.x), Double(box.y)))
            .followed(by: matrix)
        guard let inverse = toCanvas.inverted else { return }
        target.drawWarped(layer, inverse: inverse, opacity: opacity)
    }

    /// Closes decoders of items that ended before `time`; rendering only moves forward in a run.
    private func releaseSources(before time: Rational) {
        for key in sources.keys where lastShown[key]! <= time { sources[key] = nil }
        for key in generatedPictures.keys where lastShown[key]! <= time { generatedPictures[key] = nil }
        for key in captionLayers.keys where lastShown[key]! <= time { captionLayers[key] = nil }
    }
}

/// A caption item's schedule and the text its painted picture shows.
private final class CaptionLayer {
    let schedule: CaptionSchedule
    var text = ""

    init(schedule: CaptionSchedule) { self.schedule = schedule }
}
