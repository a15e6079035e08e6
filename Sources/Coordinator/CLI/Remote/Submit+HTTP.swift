import ArgumentParser
import FarmCore
import Foundation

extension Submit {
    /// `farm submit … --api URL`: the project checked here against its media, every asset sent
    /// (`MediaUpload`), and the project submitted naming them by digest (`POST /api/jobs`).
    func submitOverHTTP() throws {
        if watch || queueOnly {
            throw ValidationError(
                "--watch and --queue-only need the farm's database; over --api the job is queued "
                    + "as soon as it is accepted (farm fetch JOB -o FILE --api URL downloads it once done)")
        }
        let client = try api.client()
        let loaded = try options.load()
        if let lut = loaded.luts.keys.sorted().first {
            FarmExit.printError(
                "\(options.project): the LUT \(lut) is not sent by --api; put it in the farm's media root")
            throw FarmExit.badInput
        }
        let file = URL(fileURLWithPath: options.project)
        let text = try loaded.mergedText ?? loaded.imported?.text ?? String(contentsOf: file, encoding: .utf8)
        guard case .object(var root) = try JSONParser.parse(Array(text.utf8)),
            let assetsIndex = root.firstIndex(where: { $0.key == "assets" }),
            case .object(var assets) = root[assetsIndex].value
        else {
            FarmExit.printError("\(options.project): expected an object with assets")
            throw FarmExit.badInput
        }
        for (index, member) in assets.enumerated() {
            guard let asset = loaded.project.assets[member.key], case .object(var fields) = member.value else {
                continue
            }
            let kept: MediaUpload.Kept
            do {
                kept = try MediaUpload.send(URL(fileURLWithPath: asset.path), name: nil, with: client)
            } catch {
                FarmExit.printError("assets.\(member.key) (\(asset.path)): \(error)")
                throw FarmExit.failed
            }
            fields.removeAll { $0.key == "path" || $0.key == "type" }
            fields.insert(("path", .string(kept.path)), at: 0)
            // Named by digest, a caption file has no extension to tell what it is.
            if asset.isCaptions { fields.append(("type", .string("captions"))) }
            assets[index] = (member.key, .object(fields))
            let sent = kept.sent == 0 ? "the farm had it" : "\(Format.bytes(Int(kept.sent))) sent"
            FileHandle.standardError.writeUnlessClosed(Data("assets.\(member.key): \(kept.path) (\(sent))\n".utf8))
        }
        root[assetsIndex] = ("assets", .object(assets))
        // Merged here already: declarations sent on would merge a value holding {{ X }} twice.
        root.removeAll { $0.key == "fields" }
        var body: [(key: String, value: JSONValue)] = [
            ("project", .object(root)), ("output", .string(output)),
            ("name", .string(file.deletingPathExtension().lastPathComponent)),
            ("priority", .number(String(priority))), ("overwrite", .bool(overwrite)), ("noCache", .bool(noCache)),
        ]
        if let notify { body.append(("notify", .string(notify))) }
        if let requires { body.append(("requires", .array(try PoolTags.parse(requires).map { .string($0) }))) }
        if !after.isEmpty { body.append(("after", .array(after.map { .number(String($0)) }))) }
        do {
            let job = try client.object(
                "POST", "/api/jobs", body: Data(JSONWriter.pretty(.object(body)).utf8),
                headers: ["Content-Type": "application/json", "Idempotency-Key": UUID().uuidString])
            print((job["id"] as? NSNumber)?.stringValue ?? "?")
        } catch let failure as APIClient.Failure {
            FarmExit.printError("\(options.project): \(failure)")
            switch failure.status {
            case 400: throw FarmExit.badInput
            case 404: throw FarmExit.notFound
            case 409: throw FarmExit.conflict
            default: throw FarmExit.failed
            }
        }
    }
}
