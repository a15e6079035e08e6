import FarmCore
import FarmInterchange
import FarmMedia
import FarmRender
import FarmStore
import Foundation

/// A project submitted over HTTP checked against its media, with no database connection held:
/// its assets probed in child processes, its output checked, its chunks planned and keyed.
enum SubmissionCheck {
    /// The project checked as `farm submit --media-root ROOT` checks it, ready to insert: its
    /// media probed, its chunks planned and keyed. Problems throw as 400s.
    static func submission(
        _ fields: SubmitRoute.Fields, mediaRoot: URL, outputRoot: OutputRoot?
    ) throws -> JobSubmission {
        let file = mediaRoot.appendingPathComponent("project.json").path
        let label = fields.projectLabel
        var projectText = try fields.isTimeline ? imported(fields.project, mediaRoot: mediaRoot) : fields.project
        do {
            let merged = try TemplateFields.mergedText(
                Array(projectText.utf8), values: fields.merge.mapValues { .json($0) }, valuesPath: "merge", file: file)
            if let merged { projectText = merged }
        } catch let error as ProjectError {
            // A value's problem is named in the body's merge; a placeholder's in the project.
            throw APIError.problems(
                error.diagnostics.map {
                    ($0.path.hasPrefix("merge") ? $0.path : $0.path.isEmpty ? label : "\(label).\($0.path)", $0.message)
                })
        }
        var loader = ProjectLoader(mediaRoot: mediaRoot, confined: true)
        // The user's media is probed in a child process, as the CLI does: a file that crashes
        // FFmpeg is that asset's problem, not the coordinator's.
        let isolated = IsolatedMediaProbe(program: Subprocess.currentExecutable)
        loader.probe = { try isolated.probe(path: $0) }
        let loaded: LoadedProject
        do {
            loaded = try loader.check(try loader.parse(text: projectText, file: file), file: file)
        } catch let error as ProjectError {
            var problems = error.diagnostics.map { ($0.path.isEmpty ? nil : "\(label).\($0.path)", $0.message) }
            if fields.isTimeline {
                problems.append(
                    (nil, "(paths above are in the farm project made from this timeline; farm import writes it)"))
            }
            throw APIError.problems(problems)
        }
        let check = OutputCheck(path: fields.output, project: loaded.project, projectFile: "project")
        guard check.problems.isEmpty, let container = check.container else {
            throw APIError.problems(check.problems.map { ("output", $0) })
        }
        let outside = outputRoot?.problem(with: check.url.path)
        if let problem = check.replaceProblem(overwrite: fields.overwrite) ?? outside {
            throw APIError(.badRequest, problem, path: "output")
        }
        var submission = try JobSubmission(
            loaded: loaded, file: file, mediaRoot: mediaRoot, output: check.url, container: container,
            chunkSize: .seconds(Rational(2)), priority: fields.priority, text: projectText)
        if let name = fields.name { submission.name = name }
        submission.notifyURL = fields.notify
        submission.useCache = !fields.noCache
        submission.requires = fields.requires
        submission.after = fields.after
        return submission
    }

    /// The farm project made from an OpenTimelineIO document, its media found as `farm import
    /// --media-root ROOT` finds it; problems named by their path in the document.
    static func imported(_ timeline: String, mediaRoot: URL) throws -> String {
        var options = OTIOImport.Options()
        options.mediaRoot = mediaRoot
        do {
            let result = try OTIOImport.read(
                Array(timeline.utf8), file: mediaRoot.appendingPathComponent("timeline.otio").path, options: options)
            return JSONWriter.pretty(result.project)
        } catch let error as ProjectError {
            throw APIError.problems(
                error.diagnostics.map { ($0.path.isEmpty ? "timeline" : "timeline.\($0.path)", $0.message) })
        }
    }
}
