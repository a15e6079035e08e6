/// A parsed project together with what was learned about its media.
public struct LoadedProject: Sendable {
    public var project: Project
    /// Asset id to probe result.
    public var media: [String: MediaInfo]
    /// The versions of its media a farm render must read, and the blocks it read; nil reads
    /// the files as they are (a local render).
    public var reads: MediaReads?

    public init(project: Project, media: [String: MediaInfo], reads: MediaReads? = nil) {
        self.project = project
        self.media = media
        self.reads = reads
    }
}
