import CMicroHTTPD
import Dispatch
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The deadlines of one connection: set by the libmicrohttpd thread serving it as the
/// connection goes from phase to phase, checked by the watch thread. libmicrohttpd's own
/// timeout only counts idle time, so a client trickling a byte now and then would hold the
/// connection for ever; these count the total time.
final class ConnectionDeadlines: @unchecked Sendable {
    enum Cut: UInt8 {
        case none, headers, body, rate
    }

    let fd: Int32
    /// When the connection is closed (uptime nanoseconds); 0: no deadline (the request is
    /// complete: the handler works or the answer is being sent).
    let deadline = Atomic<UInt64>(0)
    /// When the body began (uptime nanoseconds); 0: no body arriving.
    let bodyStarted = Atomic<UInt64>(0)
    /// Body bytes received since `bodyStarted`.
    let bodyBytes = Atomic<Int>(0)
    /// Why the watch closed the connection (a `Cut`); `.none` while it has not.
    let cut = Atomic<UInt8>(Cut.none.rawValue)
    /// The connection's last answer over a shared response (`HTTPServer.queueShared`);
    /// only the libmicrohttpd thread serving the connection touches it.
    var lastShared: ConnectionResponse?
    private let headerNanos: UInt64
    private let bodyNanos: UInt64

    init(fd: Int32, headerNanos: UInt64, bodyNanos: UInt64, now: UInt64) {
        self.fd = fd
        self.headerNanos = headerNanos
        self.bodyNanos = bodyNanos
        awaitHeaders(now: now)
    }

    /// Waiting for a request's headers: from the connection's start, or after an answer.
    func awaitHeaders(now: UInt64) {
        bodyStarted.store(0, ordering: .relaxed)
        deadline.store(headerNanos == 0 ? 0 : now &+ headerNanos, ordering: .relaxed)
    }

    /// The headers are in, a body follows.
    func receiveBody(now: UInt64) {
        bodyBytes.store(0, ordering: .relaxed)
        bodyStarted.store(now, ordering: .relaxed)
        deadline.store(bodyNanos == 0 ? 0 : now &+ bodyNanos, ordering: .relaxed)
    }

    func received(_ total: Int) {
        bodyBytes.store(total, ordering: .relaxed)
    }

    /// The request is complete: no deadline until its answer is sent.
    func work() {
        bodyStarted.store(0, ordering: .relaxed)
        deadline.store(0, ordering: .relaxed)
    }

    var cutReason: Cut { Cut(rawValue: cut.load(ordering: .relaxed)) ?? .none }
}

/// One thread that, about every 250 ms, closes the connections past their deadlines
/// (`shutdown(2)`: libmicrohttpd then sees the connection end and closes it itself), and
/// that watches the sockets of suspended requests (libmicrohttpd does not while the handler
/// works) for the client leaving, to cancel the request and close its connection at once.
/// It sleeps while there is no connection.
final class ConnectionWatch: @unchecked Sendable {
    static let tickNanos: UInt64 = 250_000_000

    let headerNanos: UInt64
    let bodyNanos: UInt64
    let minBytesPerSecond: Int
    let graceNanos: UInt64
    private let logger: Logger
    /// Set once, before `start()`.
    weak var server: HTTPServer?

    private struct State {
        var connections: [ObjectIdentifier: ConnectionDeadlines] = [:]
        var running = false
        var watchThread: pthread_t?
        var finished: DispatchSemaphore?
        /// Wakes the thread's poll (a new connection after none, stop); open while it runs.
        var wakeFD: Int32 = -1
        /// Set when `stop()` ran on the watch thread itself: the thread closes `wakeFD`.
        var closeWakeOnExit = false
    }
    // The lock is also what makes shutdown(fd) safe: libmicrohttpd tells us of a
    // connection's closing (`closed`, which takes the lock) before it closes the socket, so
    // a socket in `connections` is never another connection's.
    private let state = Mutex(State())

    init(configuration: HTTPServer.Configuration, logger: Logger) {
        func nanos(_ seconds: Int) -> UInt64 { UInt64(max(0, seconds)) &* 1_000_000_000 }
        headerNanos = nanos(configuration.headerTimeoutSeconds)
        bodyNanos = nanos(configuration.bodyTimeoutSeconds)
        minBytesPerSecond = max(0, configuration.minBodyBytesPerSecond)
        graceNanos = nanos(configuration.bodyRateGraceSeconds)
        self.logger = logger
    }

    func start() {
        let done = DispatchSemaphore(value: 0)
        let wake: Int32? = state.withLock { s in
            guard !s.running else { return nil }
            s.running = true
            s.closeWakeOnExit = false
            s.wakeFD = loom_wake_create()
            s.finished = done
            return s.wakeFD
        }
        guard let wake else { return }
        let thread = Thread { [self] in
            self.run(wake: wake)
            done.signal()
        }
        thread.name = "loom-http-watch"
        thread.start()
    }

    /// Stops the thread and waits for it (unless called on it: the server's last reference
    /// may be dropped there).
    func stop() {
        let (wasRunning, onWatchThread, done, wake) = state.withLock { s in
            let wasRunning = s.running
            s.running = false
            let onWatchThread = s.watchThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            if wasRunning && onWatchThread { s.closeWakeOnExit = true }
            return (wasRunning, onWatchThread, s.finished, s.wakeFD)
        }
        guard wasRunning else { return }
        if onWatchThread { return } // the loop ends after this call returns
        loom_wake_signal(wake)
        done?.wait()
        state.withLock { s in
            if s.wakeFD == wake { s.wakeFD = -1 }
        }
        close(wake)
    }

    func opened(_ connection: ConnectionDeadlines) {
        state.withLock { s in
            s.connections[ObjectIdentifier(connection)] = connection
            if s.connections.count == 1 && s.running { loom_wake_signal(s.wakeFD) }
        }
    }

    func closed(_ connection: ConnectionDeadlines) {
        _ = state.withLock { s in
            s.connections.removeValue(forKey: ObjectIdentifier(connection))
        }
    }

    private func run(wake wakeFD: Int32) {
        state.withLock { $0.watchThread = pthread_self() }
        defer {
            state.withLock { s in
                s.watchThread = nil
                if s.closeWakeOnExit {
                    s.closeWakeOnExit = false
                    if s.wakeFD == wakeFD { s.wakeFD = -1 }
                    close(wakeFD)
                }
            }
        }
        var watched: [(RequestContext, Int32)] = []
        var fds: [pollfd] = []
        var nextCheck = DispatchTime.now().uptimeNanoseconds &+ Self.tickNanos
        while true {
            let (go, idle) = state.withLock { ($0.running, $0.connections.isEmpty) }
            if !go { break }

            watched.removeAll(keepingCapacity: true)
            server?.suspendedRequests(into: &watched)
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeFD, events: 0, revents: 0))
            for (_, fd) in watched { fds.append(pollfd(fd: fd, events: 0, revents: 0)) }

            let now = DispatchTime.now().uptimeNanoseconds
            let timeout: Int32 = idle && watched.isEmpty
                ? -1 : Int32(clamping: (nextCheck > now ? nextCheck - now : 0) / 1_000_000)
            let ready = fds.withUnsafeMutableBufferPointer {
                loom_poll_hangups($0.baseAddress, UInt32($0.count), timeout)
            }
            if ready > 0 {
                if loom_poll_is_readable(fds[0].revents) != 0 { loom_wake_drain(wakeFD) }
                for i in 1..<fds.count where loom_poll_is_hangup(fds[i].revents) != 0 {
                    server?.clientLeft(watched[i - 1].0)
                }
            }
            let after = DispatchTime.now().uptimeNanoseconds
            if after >= nextCheck {
                closeLateConnections(now: after)
                nextCheck = after &+ Self.tickNanos
            }
        }
        watched.removeAll()
    }

    private func closeLateConnections(now: UInt64) {
        var counts = [0, 0, 0, 0]
        state.withLock { s in
            for connection in s.connections.values where connection.cutReason == .none {
                let deadline = connection.deadline.load(ordering: .relaxed)
                let bodyStart = connection.bodyStarted.load(ordering: .relaxed)
                var cut = ConnectionDeadlines.Cut.none
                if deadline != 0 && now >= deadline {
                    cut = bodyStart == 0 ? .headers : .body
                } else if minBytesPerSecond > 0, bodyStart != 0, now > bodyStart, now - bodyStart >= graceNanos {
                    let seconds = Double(now - bodyStart) / 1e9
                    if Double(connection.bodyBytes.load(ordering: .relaxed)) < Double(minBytesPerSecond) * seconds {
                        cut = .rate
                    }
                }
                guard cut != .none, connection.fd >= 0 else { continue }
                connection.cut.store(cut.rawValue, ordering: .relaxed)
                _ = shutdown(connection.fd, Int32(SHUT_RDWR))
                counts[Int(cut.rawValue)] += 1
        }
        }
        if counts[1] + counts[2] + counts[3] > 0 {
            logger.notice("closed slow connections", metadata: [
                "headers_late": .stringConvertible(counts[1]), "body_late": .stringConvertible(counts[2]),
                "body_too_slow": .stringConvertible(counts[3]),
            ])
        }
    }
}

// MARK: - the server's side

extension HTTPServer {
    /// libmicrohttpd opened or is closing a connection (on its thread; on closing, before it
    /// closes the socket).
    func connectionNotified(_ connection: OpaquePointer, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                            code: MHD_ConnectionNotificationCode) {
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            let fd = loom_mhd_connection_fd(connection)
            guard fd >= 0 else { return }
            let deadlines = ConnectionDeadlines(fd: fd, headerNanos: watch.headerNanos, bodyNanos: watch.bodyNanos,
                                                now: DispatchTime.now().uptimeNanoseconds)
            socketContext.pointee = Unmanaged.passRetained(deadlines).toOpaque()
            watch.opened(deadlines)
        case .CONNECTION_NOTIFY_CLOSED:
            guard let raw = socketContext.pointee else { return }
            socketContext.pointee = nil
            let deadlines = Unmanaged<ConnectionDeadlines>.fromOpaque(raw).takeRetainedValue()
            watch.closed(deadlines)
        default:
            break
        }
    }

    /// The deadlines libmicrohttpd keeps for a connection (its socket context).
    func deadlines(of connection: OpaquePointer) -> ConnectionDeadlines? {
        guard let raw = loom_mhd_socket_context(connection) else { return nil }
        return Unmanaged<ConnectionDeadlines>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The requests whose connection is suspended while the handler works, with their
    /// sockets (for the watch thread).
    func suspendedRequests(into list: inout [(RequestContext, Int32)]) {
        state.lock()
        for ctx in parked.values where ctx.phase == .suspended && !ctx.abandoned {
            if let fd = ctx.deadlines?.fd, fd >= 0 { list.append((ctx, fd)) }
        }
        state.unlock()
    }

    /// The client of a suspended request closed its connection: cancel the request, and
    /// resume the connection to close it (its answer, when it comes, is dropped).
    func clientLeft(_ ctx: RequestContext) {
        let (claimed, cancellation) = resumeLock.withLock { _ in
            state.lock()
            // Still suspended: the connection cannot have been closed meanwhile, so the
            // socket polled was this request's.
            let claimed = ctx.phase == .suspended && !ctx.abandoned && !stopping
            if claimed {
                ctx.abandoned = true
                ctx.phase = .resumed
            }
            let cancellation = ctx.cancellation
            state.unlock()
            if claimed {
                MHD_resume_connection(ctx.connection)
            }
            return (claimed, cancellation)
        }
        if claimed {
            cancellation?.cancel()
        }
    }
}
