import FarmCore
import FarmPostgres
import Foundation

/// Workers as the coordinator hears them.
extension FarmStore {
    /// Records that a worker was heard; returns whether an operator has it draining.
    @discardableResult
    public func workerSeen(_ info: WorkerInfo, rendering: Bool) throws -> Bool {
        try connection.query(
            """
            INSERT INTO workers (id, host, cores, slots, version, state, tags, node_kind, node_summary)
            VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9)
            ON CONFLICT (id) DO UPDATE SET host = $2, cores = $3, slots = $4, version = $5, state = $6,
                tags = $7::text[], node_kind = $8, node_summary = $9, last_seen = now()
            RETURNING draining
            """,
            [
                info.id, info.host, String(info.cores), String(info.slots), info.version,
                (rendering ? WorkerState.rendering : .idle).rawValue, PostgresArray.text(info.tags ?? []),
                info.kindSignature.signature, info.kindSignature.summary,
            ]
        ).first?.decode("draining") ?? false
    }

    public func workerLost(_ id: String) throws {
        try connection.query("UPDATE workers SET state = $2 WHERE id = $1", [id, WorkerState.lost.rawValue])
    }

    /// Marks lost, and returns, the workers besides `heard` that no coordinator recorded for
    /// `seconds`: those of a coordinator that died without saying so (SIGKILL, a machine gone).
    /// Left live, they would hold back every chunk a live worker failed, waiting for a worker
    /// that never comes (`farm_claim`'s "another live worker").
    public func markSilentWorkersLost(after seconds: Double, besides heard: [String]) throws -> [String] {
        try connection.query(
            """
            UPDATE workers SET state = $1
            WHERE state <> $1 AND last_seen < now() - make_interval(secs => $2::double precision)
              AND NOT (id = ANY ($3::text[]))
            RETURNING id
            """, [WorkerState.lost.rawValue, String(seconds), PostgresArray.text(heard)]
        ).map { try $0.decode("id") }
    }

    /// Removes workers that are gone for good; their attempts keep their ids.
    public func forgetWorkers(_ ids: [String]) throws {
        for id in ids { try connection.query("DELETE FROM workers WHERE id = $1", [id]) }
    }

    /// This database's farm identity (made once, by the schema).
    public func identity() throws -> String {
        try connection.query("SELECT id FROM farm_identity")[0].decode("id")
    }
}
