import Foundation

/// A flag one thread raises and another polls: stop a loop, cancel a render.
public final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    public init() {}

    public func raise() { lock.withLock { raised = true } }
    public var isRaised: Bool { lock.withLock { raised } }
}

/// A value shared between threads behind a lock.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try lock.withLock { try body(&value) }
    }

    public var current: Value { lock.withLock { value } }
}
