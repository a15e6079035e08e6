import CZeroMQ

#if canImport(Glibc)
    import Glibc
#endif

extension MessageSocket {
    /// Lets the process open `count` sockets (ZeroMQ's default is 1,023); call before the first
    /// socket is made. A process that simulates a thousand workers needs a socket each.
    public static func allow(sockets count: Int) {
        zmq_ctx_set(context, ZMQ_MAX_SOCKETS, Int32(count))
    }

    /// Waits up to `timeout` seconds until one of `sockets` has a message; returns the indexes
    /// of those that have one (empty when none came). The caller reads them with
    /// `receive(timeout: 0)`.
    public static func poll(_ sockets: [MessageSocket], timeout: Double) throws -> [Int] {
        var items = sockets.map { zmq_pollitem_t(socket: $0.socket, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
        let ready = zmq_poll(&items, Int32(items.count), Int(max(0, timeout * 1000)))
        if ready < 0 {
            if zmq_errno() == EINTR { return [] }
            throw TransportError("poll")
        }
        return items.indices.filter { items[$0].revents & Int16(ZMQ_POLLIN) != 0 }
    }
}

extension MessageSocket {
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
