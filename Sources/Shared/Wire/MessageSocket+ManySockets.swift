import CZeroMQ

/// What a process driving many sockets from one thread needs: more sockets than ZeroMQ's
/// default, and a descriptor per socket for the kernel's poll.
extension MessageSocket {
    /// Lets the process open `count` sockets (ZeroMQ's default is 1,023); call before the first
    /// socket is made. A process that simulates a thousand workers needs a socket each.
    public static func allow(sockets count: Int) {
        zmq_ctx_set(context, ZMQ_MAX_SOCKETS, Int32(count))
    }

    /// The descriptor that becomes readable when the socket's state may have changed
    /// (`ZMQ_FD`), for an event loop over more sockets than `zmq_poll` handles cheaply. It is
    /// a signal, not the data: check `hasMessage` after it fires and after every send.
    public var descriptor: Int32 {
        var value: Int32 = -1
        var size = MemoryLayout<Int32>.size
        zmq_getsockopt(socket, ZMQ_FD, &value, &size)
        return value
    }

    /// Whether a message is waiting to be read now (`ZMQ_EVENTS`).
    public var hasMessage: Bool {
        var events: Int32 = 0
        var size = MemoryLayout<Int32>.size
        zmq_getsockopt(socket, ZMQ_EVENTS, &events, &size)
        return events & Int32(ZMQ_POLLIN) != 0
    }
}
