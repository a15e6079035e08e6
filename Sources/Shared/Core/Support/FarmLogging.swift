import Foundation
import Logging

/// Log lines to standard error, set up once per process.
public enum FarmLogging {
    private static let once = Locked(false)

    public static func bootstrap(level: Logger.Level) {
        once.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}
