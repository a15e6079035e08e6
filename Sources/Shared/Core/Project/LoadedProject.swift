/// A parsed project together with what was learned about its media.
public struct LoadedProject: Sendable, Hashable, Codable {
    public var project: Project
    /// Asset id to probe result.
    public var media: [String: MediaInfo]

    public init(project: Project, media: [String: MediaInfo]) {
        self.project = project
        self.media = media
    }
}
