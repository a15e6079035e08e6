import FarmCore

/// The per-frame shape of a transition: how far each picture moves, and the incoming picture's
/// share of each column or row (0...255).
struct TransitionMask {
    var outgoingShift: (x: Int, y: Int) = (0, 0)
    var incomingShift: (x: Int, y: Int) = (0, 0)
    var weights: [UInt8]
    var alongRows: Bool

    init(_ transition: Transition, progress: Double, width: Int, height: Int) {
        let vertical = transition.direction == .up || transition.direction == .down
        let length = vertical ? height : width
        alongRows = vertical
        switch transition.kind {
        case .dissolve, .dip:
            weights = [UInt8](repeating: UInt8((progress * 255).rounded()), count: width)
            alongRows = false
        case .wipe:
            // Position along the travel, 0 where the edge sets out; the incoming picture shows
            // where the edge has passed, blended over `softness` of the picture.
            let softness = transition.softness
            let edge = progress * (1 + softness)
            weights = (0..<length).map { index in
                let along = (Double(index) + 0.5) / Double(length)
                let s = transition.direction == .right || transition.direction == .down ? along : 1 - along
                let share = softness > 0 ? (edge - s) / softness : (s < edge ? 1 : 0)
                return UInt8((Swift.max(0, Swift.min(1, share)) * 255).rounded())
            }
        case .push, .slide:
            // Moves on the even-pixel grid so chroma moves with luma.
            let travelled = Int((progress * Double(length) / 2).rounded()) * 2
            let forward = transition.direction == .right || transition.direction == .down
            let outgoing = transition.kind == .push ? (forward ? travelled : -travelled) : 0
            let incoming = forward ? travelled - length : length - travelled
            outgoingShift = vertical ? (0, outgoing) : (outgoing, 0)
            incomingShift = vertical ? (0, incoming) : (incoming, 0)
            weights = (0..<length).map { index in
                (forward ? index < travelled : index >= length - travelled) ? 255 : 0
            }
        }
    }
}
