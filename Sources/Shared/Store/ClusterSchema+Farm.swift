import FarmPostgres
import Foundation

extension ClusterSchema {
    /// The farm's tables and functions (`Migrations`): a private server's new cluster is a copy
    /// of a template that already holds them, so it has no step left to take.
    public static let farm = ClusterSchema(version: Migrations.latest, drawnPerDatabase: Migrations.drawnPerDatabase) {
        _ = try Migrations.apply(on: $0)
    }
}

extension PrivatePostgres {
    /// A private server whose new cluster holds the farm's schema.
    public convenience init(directory: URL) throws {
        try self.init(directory: directory, schema: .farm)
    }
}
