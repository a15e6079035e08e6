/// Why a coordinator cannot serve, in words for the operator.
public struct CoordinatorError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
