/// A worker as the coordinator last heard it. `draining` is a flag beside the state: views
/// show a draining worker that is not lost as `draining`.
public enum WorkerState: String, StoredState {
    case idle, rendering, lost, draining
}
