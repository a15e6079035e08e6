/// A parsed project together with what was learned about its media.
public struct LoadedProject: Sendable {
    public var project: Project
    /// Asset id to probe result.
    public var media: [String: MediaInfo]
    /// The versions of its media a farm render must read, and the blocks it read; nil reads
    /// the files as they are (a local render).
    public var reads: MediaReads?
    /// Set when the project was imported (an `.otio`): the farm's JSON text for it, which a
    /// job stores for its workers, and what the import did not carry over.
    public var imported: ImportedProject?
    /// Set when the project is a template (`TemplateFields`): its text with the values merged,
    /// which a job stores for its workers.
    public var mergedText: String?
    /// What the project file says that was read otherwise than written (a time finer than the
    /// flick, rounded), one line per kind.
    public var warnings: [Diagnostic] = []
    /// Each caption asset's cues, read from its file.
    public var captions: [String: [CaptionCue]] = [:]
    /// The `.cube` LUTs the project's grades name, by resolved path.
    public var luts: [String: CubeLUT] = [:]

    public init(project: Project, media: [String: MediaInfo], reads: MediaReads? = nil) {
        self.project = project
        self.media = media
        self.reads = reads
    }
}

/// A project made from another format's document by an importer.
public struct ImportedProject: Sendable {
    /// The project in the farm's own format, as `farm import` writes it.
    public var text: String
    public var notes: [Diagnostic]
    public var summary: [String]

    public init(text: String, notes: [Diagnostic], summary: [String]) {
        self.text = text
        self.notes = notes
        self.summary = summary
    }
}
