import ArgumentParser
import FarmCore
import FarmMedia
import FarmRender
import Foundation

/// Options every command that reads a project shares.
struct ProjectOptions: ParsableArguments {
    @Argument(help: "The project file (JSON), or an OpenTimelineIO timeline (.otio), imported as `farm import` does.")
    var project: String

    @Option(
        name: .long,
        help: """
            Folder that relative asset paths are resolved against (default: the project file's folder). \
            Given, it also confines them: an asset outside it (absolute, .., or a link out) is refused.
            """)
    var mediaRoot: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A JSON object of values for a template's fields ({\"TITLE\": \"Summer sale\", \"PRICE\": 9.5}); "
                + "see docs/templates.md.",
            valueName: "file"))
    var merge: String?

    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "One template field's value, read as the field's type (repeatable; wins over --merge).",
            valueName: "NAME=VALUE"))
    var fieldValues: [String] = []

    @Flag(name: .long, help: "Show FFmpeg's own warnings.")
    var verbose = false

    @OptionGroup var interchange: InterchangeOptions

    /// Tests put a program here that stands in for a probe that crashes.
    @Option(name: .long, help: ArgumentHelp("The program run as `PROGRAM probe-media`.", visibility: .hidden))
    var mediaProber: String?

    /// Loads and checks the project; on bad input prints every problem and exits with code 2.
    /// With `probes`, media probed before and unchanged since is not opened again.
    /// An imported timeline's relative media paths are written absolute with
    /// `absoluteMediaPaths` (a project written to another folder).
    func load(probes: ProbeCache? = nil, absoluteMediaPaths: Bool = false) throws -> LoadedProject {
        do {
            var loader = try makeLoader(probes: probes)
            loader.interchange.absolutePaths = absoluteMediaPaths
            loader.merge = try mergeValues()
            let loaded = try loader.load(file: project)
            if let imported = loaded.imported { try interchange.report(imported.notes, file: project) }
            for warning in loaded.warnings {
                FileHandle.standardError.writeUnlessClosed(Data("\(project): warning: \(warning)\n".utf8))
            }
            return loaded
        } catch let error as ProjectError {
            FileHandle.standardError.writeUnlessClosed(Data((error.description + "\n").utf8))
            throw FarmExit.badInput
        }
    }

    /// The loader `load` uses, for a command that loads the project more than once (`farm
    /// batch`, once per row).
    func makeLoader(probes: ProbeCache? = nil) throws -> ProjectLoader {
        FFmpegLog.configure(verbose: verbose)
        // A media root given here also confines the assets to it.
        var loader = ProjectLoader(mediaRoot: mediaRoot.map { URL(fileURLWithPath: $0) }, confined: true)
        // The user's media is probed in a child process: a file that crashes FFmpeg is
        // reported as that asset's problem.
        let isolated = IsolatedMediaProbe(program: mediaProber ?? Subprocess.currentExecutable)
        let probe: @Sendable (String) throws -> MediaInfo = { try isolated.probe(path: $0) }
        if let probes {
            loader.probe = probes.probing(with: probe)
        } else {
            loader.probe = probe
        }
        loader.interchange = try interchange.options()
        return loader
    }
}

extension ProjectOptions {
    /// The values of `--merge FILE` and `--set NAME=VALUE`; a file that is not a JSON object of
    /// values is a bad input (exit 2) naming it.
    func mergeValues() throws -> [String: TemplateFields.Value] {
        var values: [String: TemplateFields.Value] = [:]
        if let merge {
            let file = URL(fileURLWithPath: merge)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ProjectError(file: merge, diagnostics: [Diagnostic(path: "", message: "file not found")])
            }
            let document: JSONValue
            do { document = try JSONParser.parse(Array(data)) } catch {
                throw ProjectError(
                    file: merge, diagnostics: [Diagnostic(path: "", message: "malformed JSON at \(error)")])
            }
            guard case .object(let members) = document else {
                throw ProjectError(
                    file: merge,
                    diagnostics: [
                        Diagnostic(
                            path: "", message: "expected an object of field values, got \(document.kindDescription)")
                    ])
            }
            for (name, value) in members { values[name] = .json(value) }
        }
        for assignment in fieldValues {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw ValidationError("--set takes NAME=VALUE (got \"\(assignment)\")")
            }
            values[String(assignment[..<equals])] = .text(String(assignment[assignment.index(after: equals)...]))
        }
        return values
    }
}
