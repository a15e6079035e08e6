import FarmWire
import FarmWorker
import Testing

/// The agent's socket in unit tests: what the agent sends is decoded and kept in order, and what
/// the test delivers is what the agent receives next. A wait with nothing to receive moves the
/// clock on by the wait's timeout, as a real wait would.
final class ScriptedCoordinator: CoordinatorLink {
    let clock: ManualClock
    private(set) var endpoints: [String] = []
    private(set) var sent: [WireMessage] = []
    private var inbox: [[[UInt8]]] = []
    /// Called when the agent waits and nothing is there, before the clock moves.
    var whenIdle: () -> Void = {}

    init(clock: ManualClock) {
        self.clock = clock
    }

    func deliver(_ message: WireMessage) {
        inbox.append(message.encoded())
    }

    func deliver(frames: [[UInt8]]) {
        inbox.append(frames)
    }

    func connect(_ endpoint: String) throws {
        endpoints.append(endpoint)
    }

    func send(_ frames: [[UInt8]]) throws -> Bool {
        do {
            sent.append(try WireMessage(frames: frames))
        } catch {
            Issue.record("the agent sent frames that do not decode: \(error)")
        }
        return true
    }

    func receive(timeout: Double) throws -> [[UInt8]]? {
        guard inbox.isEmpty else { return inbox.removeFirst() }
        whenIdle()
        clock.advance(by: .seconds(timeout))
        return nil
    }
}
