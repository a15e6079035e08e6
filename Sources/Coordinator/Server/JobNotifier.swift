import FarmCore
import FarmStore
import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Tells each ended job's `notify` URL: the job's JSON (as `GET /api/jobs/{id}` gives its
/// `job`) POSTed once, signed with the farm's secret, retried with backoff until the receiver
/// answers 2xx. A receiver that is slow or away never holds up the coordinator: deliveries run in
/// the background (`BackgroundPass`), started by the coordinator's loop (`poke`).
///
/// Headers: `X-Farm-Signature: sha256=HEX`, the HMAC-SHA256 of the exact body under the farm's
/// secret (`farm tokens notify-secret`); `X-Farm-Job`, the job's id, by which a receiver drops a repeat
/// (a coordinator that died between a POST and recording it sends it again); `X-Farm-Delivery:
/// JOB.TRY`, the try's number.
final class JobNotifier: @unchecked Sendable {
    /// Tries before the farm gives up on a notice; waits double from 1 s to at most 5 min.
    static let maximumTries = 10
    private let logger: Logger
    private var background: BackgroundPass!
    private var secret: String?
    private let targets: NotifyTargets
    private let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        // A receiver that trickles its answer holds no other notice past this.
        configuration.timeoutIntervalForResource = 15
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    init(database: String, targets: NotifyTargets, logger: Logger) {
        self.logger = logger
        self.targets = targets
        background = BackgroundPass(name: "notifications", database: database, logger: logger) { [unowned self] in
            try pass($0)
        }
    }

    /// Starts a pass unless one runs.
    func poke() { background.poke() }

    /// Waits for a pass in progress (the coordinator is stopping).
    func finish() { background.finish() }

    private func pass(_ store: FarmStore) throws {
        let due = try store.claimDueNotices()
        guard !due.isEmpty else { return }
        let secret = try self.secret ?? store.notifySecret()
        self.secret = secret
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for notice in due {
            guard let job = try store.jobStatuses(id: notice.job).first else { continue }
            let body = try encoder.encode(job)
            let url = URL(string: notice.url)
            let refusal = url?.host.flatMap(targets.refusal(host:))
            let problem =
                refusal?.reason ?? url.map { deliver(body, to: $0, notice: notice, secret: secret) } ?? "not a URL"
            let tries = notice.attempts + 1
            if let problem {
                // A refused address stays refused: never tried again.
                let final = refusal?.final ?? false
                let retry = tries < Self.maximumTries && !final ? min(300, pow(2, Double(notice.attempts))) : nil
                try store.recordNoticeFailed(job: notice.job, error: problem, retryIn: retry)
                let next =
                    retry.map { "trying again in \(Int($0)) s" }
                    ?? (final ? "not sent" : "giving up after \(tries) tries")
                logger.warning("job \(notice.job): notifying \(notice.url) failed (\(problem)); \(next)")
            } else {
                try store.recordNoticeDelivered(job: notice.job)
                logger.info("job \(notice.job): notified \(notice.url)")
            }
        }
    }

    /// POSTs `body`; nil when the receiver answered 2xx, else what went wrong.
    private func deliver(_ body: Data, to url: URL, notice: DueNotice, secret: String) -> String? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        // Named, so a receiver's logs say which release sent it (URLSession's default names none).
        request.setValue("farm/\(FarmVersion.current)", forHTTPHeaderField: "User-Agent")
        let signature = "sha256=" + HMACSHA256.hex(key: secret, message: Array(body))
        request.setValue(signature, forHTTPHeaderField: "X-Farm-Signature")
        request.setValue(String(notice.job), forHTTPHeaderField: "X-Farm-Job")
        request.setValue("\(notice.job).\(notice.attempts + 1)", forHTTPHeaderField: "X-Farm-Delivery")
        let answered = DispatchSemaphore(value: 0)
        let outcome = Locked<String?>("no answer")
        session.dataTask(with: request) { _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode
            outcome.withLock {
                $0 =
                    error.map { "\($0.localizedDescription)" }
                    ?? status.flatMap { (200..<300).contains($0) ? nil : "HTTP \($0)" }
            }
            answered.signal()
        }.resume()
        answered.wait()
        return outcome.current
    }
}

/// A notice goes to the URL given and nowhere else: an answer that redirects counts as a
/// failed delivery (its 3xx status), as a redirect could lead inside the farm's network.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
