import FarmCore
import FarmRender
import FarmWire

/// What the agent asks of its renderer: `AssignmentRenderer` (the compositor and FFmpeg) on a
/// farm, a stand-in that writes known bytes in unit tests. Called on render threads.
package protocol ChunkRendering: Sendable {
    /// Renders `assignment` into a file, reporting each frame; stops with an error once
    /// `cancellation` is raised.
    func render(
        _ assignment: Assignment, cancellation: StopFlag, progress: @escaping (RenderProgress) -> Void
    ) throws -> AssignmentRenderer.Output

    /// Forgets an attempt's scratch files once its result is accepted or dropped.
    func discard(_ key: AttemptKey)
}

extension AssignmentRenderer: ChunkRendering {}
