/// A chunk row's state. A chunk whose latest attempt failed is `queued` again; views call it
/// failed (see `ChunkStatus`).
public enum ChunkState: String, StoredState {
    case queued, running, done
}
