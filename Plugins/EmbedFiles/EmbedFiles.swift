import PackagePlugin

/// Puts a target's web files (`.html`, `.css`, `.js`) into its code at build time: one
/// generated Swift file holds each file's text (`EmbedFilesTool`). Not resources: `farm` is
/// installed alone, by a package or in an image, with no bundle beside it.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let inputs = target.sourceFiles.map(\.path).filter { ["html", "css", "js"].contains($0.extension ?? "") }
        let output = context.pluginWorkDirectory.appending("EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) web files in \(target.name)",
                executable: try context.tool(named: "EmbedFilesTool").path,
                arguments: [output.string] + inputs.map(\.string), inputFiles: inputs, outputFiles: [output])
        ]
    }
}
