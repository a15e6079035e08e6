import FarmCore
import Foundation

/// One coordinator leads a farm database at a time, and a coordinator that comes back (after a
/// restart or a database outage) gives the workers it could not hear a lease to report in.
extension FarmStore {
    /// The advisory lock a leading coordinator holds for as long as its session lives.
    private static let leaderLock = "7354626172"

    /// Takes the lead if no other coordinator holds it; true when this session leads. The lock
    /// belongs to the connection: it ends with the process or with a lost connection.
    public func tryLead() throws -> Bool {
        try connection.query("SELECT pg_try_advisory_lock($1::bigint) AS leads", [Self.leaderLock])[0].decode("leads")
    }

    /// Restarts every running attempt's lease from now. While no coordinator was listening, the
    /// workers' heartbeats went unheard; their leases ran on regardless, and expiring them now
    /// would throw away renders that are finished or uploading.
    public func graceRunningLeases(leaseSeconds: Double) throws {
        try connection.query(
            """
            UPDATE chunks SET lease_expires = now() + make_interval(secs => $1::double precision)
            WHERE state = 'running'
            """, [String(leaseSeconds)])
    }

    /// Records the folder the leading coordinator writes outputs in (nil: anywhere).
    public func setOutputRoot(_ root: OutputRoot?) throws {
        try connection.query("UPDATE farm_identity SET output_root = $1", [root?.path])
    }

    /// The leading coordinator's output root, if it has one.
    public func outputRoot() throws -> OutputRoot? {
        try connection.query("SELECT output_root FROM farm_identity")[0].decode("output_root", as: String?.self).map {
            OutputRoot(URL(fileURLWithPath: $0))
        }
    }

    /// Records why the data folder cannot be written (nil: it can again).
    public func setDataFolderProblem(_ problem: String?) throws {
        try connection.query("UPDATE farm_identity SET data_folder_problem = $1", [problem])
    }

    /// Connects again after the database went away.
    public func reconnect() throws {
        try connection.reconnect()
    }
}
