import Foundation

extension DispatchQueue {
    /// Runs blocking work (libpq, a probe's child process) on this queue and awaits its result,
    /// so that it never holds one of the server's event loops or Swift's few cooperative threads.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            self.async { continuation.resume(with: Result(catching: body)) }
        }
    }
}
