import CSpawn

/// The calling thread's scheduling priority. On Linux `setpriority` with a thread's id changes
/// that thread alone (its nice value); the rest of the process keeps its own.
public enum ThreadPriority {
    /// Background work the process can wait for (nice 10): it runs on what the other threads
    /// and processes leave, and a failure to lower it changes nothing else.
    public static func lower() {
        _ = farm_nice_this_thread(10)
    }
}
