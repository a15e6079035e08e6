/// What a private server's new cluster holds beyond initdb's: a schema put in place once per
/// machine, in the template every new cluster is a copy of (`ClusterTemplate`), and the values
/// each copy then draws for itself. The store's schema is one (`ClusterSchema.farm`); the
/// driver knows none.
public struct ClusterSchema: Sendable {
    /// The schema's last step: a template of another step is another template.
    public var version: Int
    /// Puts the schema in place on the template's server.
    public var apply: @Sendable (PostgresConnection) throws -> Void
    /// SQL run once on a copy's server, for what no two databases may share (secrets, ids).
    public var drawnPerDatabase: String

    public init(
        version: Int, drawnPerDatabase: String, apply: @escaping @Sendable (PostgresConnection) throws -> Void
    ) {
        self.version = version
        self.apply = apply
        self.drawnPerDatabase = drawnPerDatabase
    }
}
