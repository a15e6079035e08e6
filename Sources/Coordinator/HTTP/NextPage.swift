import Hummingbird

/// A list answered a page at a time: newest first, `before=ID` the cursor. A full page says
/// where the next one is (`Link: </api/jobs?limit=50&before=ID>; rel="next"`).
package enum NextPage {
    package static func response<T: Encodable>(_ items: [T], path: String, limit: Int, id: (T) -> Int64) throws
        -> Response
    {
        var response = try JSONBody.response(items)
        if items.count == limit, let last = items.last {
            response.headers[.link] = "<\(path)?limit=\(limit)&before=\(id(last))>; rel=\"next\""
        }
        return response
    }
}
