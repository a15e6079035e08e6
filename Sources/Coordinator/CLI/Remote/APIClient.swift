import FarmCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The farm's HTTP API from the command line (`farm upload`, `farm fetch`, `farm submit
/// --api`): for a machine that reaches the coordinator's API and nothing else of the farm.
struct APIClient {
    let base: URL
    let token: String

    struct Failure: Error, CustomStringConvertible {
        var status: Int
        var message: String
        var description: String { status == 0 ? message : "\(message) (HTTP \(status))" }
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The whole file's size a 206 names (`Content-Range: bytes A-B/TOTAL`).
        var rangeTotal: Int64? {
            headers["content-range"].flatMap { $0.split(separator: "/").last }.flatMap { Int64($0) }
        }
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        return URLSession(configuration: configuration)
    }()

    /// One request and its answer, whatever its status; a failed connection throws.
    private func once(
        _ method: String, _ path: String, body: Data?, headers: [String: String]
    ) throws -> Answer {
        guard let url = URL(string: path, relativeTo: base) else {
            throw Failure(status: 0, message: "cannot make a URL of \(base) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Result<Answer, Error>?>(nil)
        Self.session.dataTask(with: request) { data, response, error in
            result.withLock {
                if let error {
                    $0 = .failure(Failure(status: 0, message: "\(base.absoluteString): \(error.localizedDescription)"))
                } else {
                    let http = response as? HTTPURLResponse
                    var fields: [String: String] = [:]
                    for (name, value) in http?.allHeaderFields ?? [:] {
                        if let name = name as? String, let value = value as? String {
                            fields[name.lowercased()] = value
                        }
                    }
                    $0 = .success(Answer(status: http?.statusCode ?? 0, headers: fields, body: data ?? Data()))
                }
            }
            done.signal()
        }.resume()
        done.wait()
        return try result.current!.get()
    }

    /// One call; an answer outside 2xx throws with the API's `error` text (and its `path`). A
    /// GET, or a POST with an `Idempotency-Key`, is sent again (three tries in all) when the
    /// connection fails: the key makes the farm answer a repeat with what the first made.
    func call(
        _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]
    ) throws -> Answer {
        let tries = method == "GET" || headers["Idempotency-Key"] != nil ? 3 : 1
        var received: Answer?
        for attempt in 1...tries {
            do {
                received = try once(method, path, body: body, headers: headers)
                break
            } catch let failure as Failure where failure.status == 0 && attempt < tries {
                Thread.sleep(forTimeInterval: Double(attempt))
            }
        }
        let answer = received!
        guard (200..<300).contains(answer.status) else {
            let detail = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
            let message = detail?["error"] as? String ?? String(decoding: answer.body.prefix(300), as: UTF8.self)
            let path = (detail?["path"] as? String).map { "\($0): " } ?? ""
            throw Failure(status: answer.status, message: path + message)
        }
        return answer
    }

    /// A call answering a JSON object.
    func object(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:]) throws
        -> [String: Any]
    {
        let answer = try call(method, path, body: body, headers: headers)
        return (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
    }
}
