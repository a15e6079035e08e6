import FarmCore
import FarmMedia
import FarmText

extension RenderNodeKind {
    /// This process's kind, with libx264's instruction set as capped (`X264InstructionSet`).
    public static var current: RenderNodeKind {
        RenderNodeKind(
            farm: FarmVersion.current, renderer: ChunkKeys.rendererVersion, ffmpeg: MediaLibraries.versions,
            x264: X264InstructionSet.reported, fonts: FontInventory.digest)
    }
}
