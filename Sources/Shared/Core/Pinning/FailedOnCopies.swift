/// A render that failed after it found some of its pinned assets as copies (`MediaPin.Match.copy`:
/// the pinned size, another stamp). The worker cannot tell a copy of its own from the submitted
/// file replaced after submission by one of the same size; the coordinator, which sees the
/// files as they were submitted, can: it holds the named assets against their pins before it
/// takes the failure for the decoder's.
public struct FailedOnCopies: Error, CustomStringConvertible {
    public let error: any Error
    /// The asset ids found as copies, sorted.
    public let assets: [String]

    public init(_ error: any Error, assets: [String]) {
        self.error = error
        self.assets = assets
    }

    public var description: String { "\(error)" }
}
