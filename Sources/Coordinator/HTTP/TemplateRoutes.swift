import FarmCore
import FarmStore
import Foundation
import Hummingbird

/// Templates kept by the farm for apps (docs/templates.md): `POST /api/templates` keeps a
/// project with `fields`, `POST /api/templates/{id}/renders` queues a job of it with merge
/// values, as `POST /api/jobs` would with the project in the body.
enum TemplateRoutes {
    static func add(to api: RouterGroup<BasicRequestContext>, store: StorePool, submissions: SubmitRoute) {
        api.post("templates") { request, _ in
            let body = try JSONBody.parse(try await JSONBody.bytes(of: request, upTo: 16 << 20), of: request)
            let (name, project) = try templateFields(body)
            let text = JSONWriter.pretty(project)
            let kept = try await APIRoutes.answerValue(store) { try $0.createTemplate(name: name, projectText: text) }
            return try JSONBody.response(try TemplateSummary(kept), status: .created)
        }
        api.get("templates") { request, _ in
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 50
            let before = try request.integerQuery("before", in: 1...Int(Int64.max)).map(Int64.init)
            let kept = try await APIRoutes.answerValue(store) { try $0.templates(limit: limit, before: before) }
            return try NextPage.response(try kept.map(TemplateSummary.init), path: "/api/templates", limit: limit) {
                $0.id
            }
        }
        api.get("templates/:id") { _, context in
            let template = try await kept(try templateID(context), store: store)
            return try JSONBody.response(try TemplateDetail(template))
        }
        api.delete("templates/:id") { _, context in
            let id = try templateID(context)
            guard try await APIRoutes.answerValue(store, { try $0.deleteTemplate(id) }) else {
                throw APIError(.notFound, "no template \(id)", path: "id")
            }
            return Response(status: .noContent)
        }
        api.post("templates/:id/renders") { request, context in
            let template = try await kept(try templateID(context), store: store)
            let bytes = try await JSONBody.bytes(of: request, upTo: 16 << 20)
            guard case .object(var members) = try JSONBody.parse(bytes, of: request) else {
                throw APIError(.badRequest, "expected an object: {\"merge\": {…}, \"output\": \"/abs/out.mp4\"}")
            }
            for key in ["project", "timeline"] where members.contains(where: { $0.key == key }) {
                throw APIError(.badRequest, "a render of a template takes its project from the template", path: key)
            }
            members.append(("project", try JSONParser.parse(Array(template.projectText.utf8))))
            if !members.contains(where: { $0.key == "name" }) {
                members.append(("name", .string(template.name)))
            }
            var fields = try SubmitRoute.fields(.object(members))
            fields.projectLabel = "template"
            return try await submissions.submit(fields, request: request, body: bytes, store: store)
        }
    }

    private static func templateID(_ context: BasicRequestContext) throws -> Int64 {
        guard let id = context.parameters.get("id", as: Int64.self), id > 0 else {
            throw APIError(.badRequest, "a template id is a positive integer", path: "id")
        }
        return id
    }

    private static func kept(_ id: Int64, store: StorePool) async throws -> TemplateRecord {
        guard let template = try await APIRoutes.answerValue(store, { try $0.template(id) }) else {
            throw APIError(.notFound, "no template \(id)", path: "id")
        }
        return template
    }

    /// The body of `POST /api/templates`: `{"name": "promo", "project": {… "fields": {…}}}`.
    private static func templateFields(_ body: JSONValue) throws -> (String, JSONValue) {
        guard case .object(let members) = body else { throw APIError.expected("an object", got: body, path: "") }
        for member in members where member.key != "name" && member.key != "project" {
            throw APIError(.badRequest, "unknown key (allowed: name, project)", path: member.key)
        }
        guard let project = members.first(where: { $0.key == "project" })?.value else {
            throw APIError(.badRequest, "is required: a farm project with fields", path: "project")
        }
        var name = "template"
        if let value = members.first(where: { $0.key == "name" })?.value {
            guard case .string(let text) = value else { throw APIError.expected("a string", got: value, path: "name") }
            if let problem = JobSubmission.nameProblem(text) { throw APIError(.badRequest, problem, path: "name") }
            name = text
        }
        do {
            guard try TemplateFields.declared(in: project) != nil else {
                throw APIError(
                    .badRequest, "a template declares its fields here (\"TITLE\": {\"type\": \"string\"})",
                    path: "project.fields")
            }
        } catch let error as ProjectError {
            throw APIError.problems(error.diagnostics.map { ("project.\($0.path)", $0.message) })
        }
        return (name, project)
    }
}

/// A kept template as the API lists it: its fields, without the project.
struct TemplateSummary: Encodable, Sendable {
    struct Field: Encodable, Sendable {
        var name: String
        var type: String
        /// The default's JSON text (`"Hello"`, `0.5`); absent when the field must be given.
        var `default`: JSONText?
        var description: String?
    }

    var id: Int64
    var name: String
    var createdAt: String
    var fields: [Field]

    init(_ record: TemplateRecord) throws {
        id = record.id
        name = record.name
        createdAt = record.createdAt
        let document = try JSONParser.parse(Array(record.projectText.utf8))
        fields = (try TemplateFields.declared(in: document)?.fields ?? []).map {
            Field(
                name: $0.name, type: $0.type.rawValue, default: $0.defaultValue.map(JSONText.init),
                description: $0.description)
        }
    }
}

/// `GET /api/templates/{id}`: the summary and the project.
struct TemplateDetail: Encodable, Sendable {
    var summary: TemplateSummary
    var project: JSONText

    init(_ record: TemplateRecord) throws {
        summary = try TemplateSummary(record)
        project = JSONText(try JSONParser.parse(Array(record.projectText.utf8)))
    }

    func encode(to encoder: Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(project, forKey: .project)
    }

    private enum Key: String, CodingKey { case project }
}
