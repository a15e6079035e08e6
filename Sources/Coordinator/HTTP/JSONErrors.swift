import HTTPTypes
import Hummingbird

/// Every error a call ends with answers in the API's JSON shape (`APIError`), also those
/// Hummingbird throws itself (a missing parameter), which would answer with an empty body or
/// with its own `{"error": {"message": …}}`. The router's first middleware: it wraps every
/// route and the answer to a request no route takes.
struct JSONErrors<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as any HTTPResponseError {
            let hummingbird = error as? HTTPError
            var shaped = APIError(error.status, hummingbird?.body ?? error.status.reasonPhrase.lowercased())
            shaped.extraHeaders = hummingbird?.headers ?? [:]
            shaped.extraHeaders[.contentType] = nil
            throw shaped
        } catch {
            throw APIError.from(error)
        }
    }
}
