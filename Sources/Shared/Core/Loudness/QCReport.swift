/// What came out of a render, measured from the output file itself: its streams, its sound's
/// loudness, peaks and silences, its timestamps at every seam, and whether it meets the
/// project's loudness target. `farm qc JOB` prints it; the API and the dashboard show it.
public struct QCReport: Sendable, Codable, Hashable {
    public struct Video: Sendable, Codable, Hashable {
        public var codec: String
        public var profile: String?
        public var width: Int
        public var height: Int
        public var pixelFormat: String?
        public var frameRate: String?
        public var colorTransfer: String?
        /// Packets read, each one frame.
        public var frames: Int64
        /// Stretches of at least `blackMinimum` seconds of black frames (`blackdetect`'s rule).
        public var blacks: [Run] = []

        public init(
            codec: String, profile: String?, width: Int, height: Int, pixelFormat: String?, frameRate: String?,
            colorTransfer: String?, frames: Int64
        ) {
            self.codec = codec
            self.profile = profile
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.frameRate = frameRate
            self.colorTransfer = colorTransfer
            self.frames = frames
        }
    }

    public struct Audio: Sendable, Codable, Hashable {
        public var codec: String
        public var sampleRate: Int
        public var channels: Int
        /// Decoded samples per channel.
        public var samples: Int64
        /// LUFS; nil for silence or under 400 ms of sound.
        public var integrated: Double?
        /// LU.
        public var loudnessRange: Double
        /// dBTP (BS.1770 four-times oversampling); nil for digital silence.
        public var truePeak: Double?
        /// dBFS; nil for digital silence.
        public var samplePeak: Double?
        /// Stretches of at least `silenceMinimum` seconds under `silenceThreshold` dBFS.
        public var silences: [Run]

        public init(
            codec: String, sampleRate: Int, channels: Int, samples: Int64, integrated: Double?, loudnessRange: Double,
            truePeak: Double?, samplePeak: Double?, silences: [Run]
        ) {
            self.codec = codec
            self.sampleRate = sampleRate
            self.channels = channels
            self.samples = samples
            self.integrated = integrated
            self.loudnessRange = loudnessRange
            self.truePeak = truePeak
            self.samplePeak = samplePeak
            self.silences = silences
        }
    }

    /// A stretch of the output, in seconds from its start.
    public struct Run: Sendable, Codable, Hashable {
        public var start: Double
        public var end: Double

        public init(start: Double, end: Double) {
            self.start = start
            self.end = end
        }
    }

    /// The output's timestamps where two chunks or two audio blocks meet.
    public struct Seams: Sendable, Codable, Hashable {
        /// Video chunk seams and audio block seams checked.
        public var checked: Int
        /// Each one whose timestamps do not follow on exactly, described.
        public var broken: [String]

        public init(checked: Int, broken: [String]) {
            self.checked = checked
            self.broken = broken
        }
    }

    /// A further rendition's file (`export.renditions`), or an HLS rendition's playlist: its
    /// video as read back, and its seams.
    public struct Rendition: Sendable, Codable, Hashable {
        public var name: String
        public var path: String
        public var bytes: Int64
        public var video: Video
        public var seams: Seams

        public init(name: String, path: String, bytes: Int64, video: Video, seams: Seams) {
            self.name = name
            self.path = path
            self.bytes = bytes
            self.video = video
            self.seams = seams
        }
    }

    public var path: String
    public var bytes: Int64
    public var container: String
    public var duration: String?
    public var video: Video?
    public var audio: Audio?
    public var seams: Seams
    public var target: LoudnessTarget?
    /// Why the output misses its target; empty when it meets it or has none.
    public var misses: [String]
    /// Every rendition after the first (which is the output itself, above); nil with one.
    public var renditions: [Rendition]? = nil

    public init(
        path: String,
        bytes: Int64,
        container: String,
        duration: String?,
        video: Video?,
        audio: Audio?,
        seams: Seams,
        target: LoudnessTarget?,
        misses: [String]
    ) {
        self.path = path
        self.bytes = bytes
        self.container = container
        self.duration = duration
        self.video = video
        self.audio = audio
        self.seams = seams
        self.target = target
        self.misses = misses
    }

    public static let silenceThreshold = -60.0
    public static let silenceMinimum = 2.0
    public static let blackMinimum = 2.0

    public var meetsTarget: Bool { misses.isEmpty }
}
