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

/// A generic HTTP/1.1 server on libmicrohttpd. It hands every complete request to one
/// handler and sends what the handler answers, whenever and from whatever thread it
/// answers: while the handler works, the libmicrohttpd connection is suspended, so
/// libmicrohttpd's threads never wait for it.
///
/// The server itself answers, without calling the handler: requests whose framing
/// RFC 9112 forbids (400 `bad_request`, `HTTPFraming.swift`), requests the precheck
/// rejects, `OPTIONS` (CORS preflight, 204), bodies over `maxBodyBytes` (413), bodies
/// that would pass `maxBufferedBodyBytes` (503), with `decodesGzipBodies` bodies in an
/// encoding other than gzip (415), gzip that does not inflate (400) or inflates past
/// `maxBodyBytes` (413); the bodies of its own refusals come from
/// `Configuration.refusalResponse` (`HTTPRefusal`). It adds CORS headers
/// and `X-Content-Type-Options: nosniff`, gzip-compresses large bodies for clients that
/// accept it (`HTTPResponsePreparation.swift`), and gives every request an id when
/// `requestIDHeader` is set. It closes connections that send their
/// headers or body too slowly, and cancels the requests of clients that leave while the
/// handler works (`HTTPConnectionWatch.swift`).
///
/// The files: this one is the lifecycle; `HTTPCallbacks.swift` the C callbacks and the
/// access log; `HTTPRequestPhases.swift` a request from its headers to the handler;
/// `HTTPAnswering.swift` from the handler's answer to libmicrohttpd.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: Configuration
    let logger: Logger
    /// Whether `logger` lets the access lines (info) through; read once (reading a
    /// Logger's level copies its handler, and this is asked once per request).
    let logsAccess: Bool
    let precheck: Precheck?
    /// `configuration.exposedHeaders` as one header value, nil when there are none.
    let exposedHeaders: String?
    /// `configuration.corsAllowedHeaders` as one header value.
    let corsAllowedHeaders: String
    /// Makes the ids of requests that bring none (`configuration.requestIDHeader`).
    let requestIDs = RequestIDMaker()
    let handler: Handler

    /// When set, the access log line goes here instead of through `logger` (still only when
    /// `logger.logLevel` lets info through): `message` is exactly the text `logger.info`
    /// would get and `fields` its metadata (`fields.metadata`). For a log handler that
    /// writes such lines cheaper than a swift-log record. Set it before `start()`.
    public var accessLogWriter: (@Sendable (_ message: UnsafeRawBufferPointer, _ fields: HTTPAccessLogFields) -> Void)?

    // All mutable state, the server's and every RequestContext's, is guarded by `state`.
    // It is never held while calling into libmicrohttpd.
    let state = NSCondition()
    var daemon: OpaquePointer?
    private var listenSocket: ListenSocket?
    private var quiescedSocket: Int32 = -1
    private var started = false
    var quiesced = false
    var stopping = false
    /// Requests whose headers have arrived and that are not completed yet (counted from the
    /// first access-handler call, so a request whose body is still arriving is in flight).
    var inFlightCount = 0
    /// Those of them whose connection was (or is being) suspended: what stop() resumes.
    /// Requests answered while the handler runs never get here.
    var parked: [ObjectIdentifier: RequestContext] = [:]
    /// Threads in waitUntilIdle (completions only wake waiters when there are some).
    var idleWaiters = 0
    private var startupMessages: [String] = []
    private var capturingStartup = false
    /// Held by the watch thread around its MHD_resume_connection calls and by stop()
    /// around MHD_stop_daemon, so that no resume can hit a stopped daemon.
    let resumeLock = Mutex(())
    /// Resumes by `respond` under way: claimed under `state` while not `stopping`, and
    /// waited out by stop() before it stops the daemon.
    let resuming = Atomic<Int>(0)
    private var logSink: UnsafeMutablePointer<loom_log_sink>?
    /// libmicrohttpd responses kept for `HTTPResponse.reuseKey`s.
    let shared = SharedResponses()
    /// Deadlines of every connection, and the sockets of suspended requests.
    let watch: ConnectionWatch
    /// Bytes held in request bodies still arriving, server-wide (`maxBufferedBodyBytes`).
    let bufferedBodyBytes = Atomic<Int>(0)

    /// Discarded body bytes accepted after a body was refused, before the connection is
    /// closed without an answer.
    var discardAllowance: Int { max(64 << 10, min(configuration.maxBodyBytes, 1 << 20)) }

    /// `precheck` (nil: none) sees every request as soon as its headers are in; see
    /// `Precheck`.
    public init(configuration: Configuration, logger: Logger, precheck: Precheck? = nil,
                handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = logger
        self.logsAccess = logger.logLevel <= .info
        self.exposedHeaders = configuration.exposedHeaders.isEmpty ? nil : configuration.exposedHeaders.joined(separator: ", ")
        self.corsAllowedHeaders = configuration.corsAllowedHeaders.joined(separator: ", ")
        self.precheck = precheck
        self.handler = handler
        self.watch = ConnectionWatch(configuration: configuration, logger: logger)
        watch.server = self
    }

    deinit {
        stop()
    }

    // MARK: - lifecycle

    /// Binds and starts serving. Throws `HTTPServerError.addressInUse` if the port is taken.
    public func start() throws {
        state.lock()
        if started {
            state.unlock()
            throw HTTPServerError.invalidState("start() called twice")
        }
        started = true
        state.unlock()

        let socket: ListenSocket
        do {
            socket = try ListenSocket.open(host: configuration.host, port: configuration.port)
        } catch {
            state.lock()
            started = false // may be retried
            state.unlock()
            throw error
        }

        let sink = UnsafeMutablePointer<loom_log_sink>.allocate(capacity: 1)
        sink.initialize(to: loom_log_sink(fn: mhdLogCallback, ctx: Unmanaged.passUnretained(self).toOpaque()))

        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        // poll(), not epoll: with epoll, MHD_quiesce_daemon (stopAccepting, on SIGTERM) races
        // with the polling threads, which remove the listening socket from their epoll sets
        // too, and libmicrohttpd 0.9.75 aborts the process when its removal finds the socket
        // already gone ("Failed to remove listen FD from epoll set", daemon.c, not under a
        // lock): seen once in make test's drain test. Quiescing a poll() loop only signals it.
        flags |= MHD_USE_POLL.rawValue

        state.lock()
        capturingStartup = true
        startupMessages = []
        state.unlock()
        watch.start()

        let cls = Unmanaged.passUnretained(self).toOpaque()
        let d = loom_mhd_start(
            flags, socket.fd,
            mhdAccessCallback, cls,
            mhdCompletedCallback, cls,
            mhdNotifyConnectionCallback, cls,
            sink,
            UInt32(clamping: max(1, configuration.maxConnections)),
            UInt32(clamping: max(0, configuration.connectionTimeoutSeconds)),
            UInt32(clamping: max(1, configuration.threads)))

        state.lock()
        capturingStartup = false
        let messages = startupMessages
        startupMessages = []
        if let d {
            daemon = d
            listenSocket = socket
            logSink = sink
        }
        state.unlock()

        guard d != nil else {
            watch.stop()
            state.lock()
            started = false
            state.unlock()
            close(socket.fd)
            sink.deinitialize(count: 1)
            sink.deallocate()
            throw HTTPServerError.startFailed(reason: messages.isEmpty ? "MHD_start_daemon failed" : messages.joined(separator: "; "))
        }
        logger.info("HTTP server listening", metadata: [
            "host": .string(configuration.host), "port": .stringConvertible(socket.port),
            "threads": .stringConvertible(configuration.threads),
        ])
    }

    /// The port actually listened on (the chosen one when `port` is 0); 0 before start.
    public var boundPort: Int {
        state.lock()
        defer { state.unlock() }
        return listenSocket?.port ?? 0
    }

    /// Requests in flight: their headers have arrived (their body may still be arriving)
    /// and their response has not been fully sent yet.
    public var inFlight: Int {
        state.lock()
        defer { state.unlock() }
        return inFlightCount
    }

    /// Stops accepting connections: from now on the kernel refuses new ones. Requests
    /// in flight (including those whose body is still arriving) and open connections are
    /// still served; responses from now on carry `Connection: close`.
    public func stopAccepting() {
        state.lock()
        guard let d = daemon, !quiesced, !stopping else {
            state.unlock()
            return
        }
        quiesced = true
        state.unlock()

        let fd = MHD_quiesce_daemon(d)
        if fd < 0 {
            logger.error("MHD_quiesce_daemon failed; new connections are still accepted")
            return
        }
        // libmicrohttpd no longer polls the socket, but it must stay open until
        // MHD_stop_daemon (its threads may still look at it). shutdown() on a listening
        // socket makes Linux refuse new connections (and reset queued ones) at once.
        _ = shutdown(fd, Int32(SHUT_RDWR))
        state.lock()
        quiescedSocket = fd
        state.unlock()
        logger.info("HTTP server stopped accepting connections")
    }

    /// Waits until no request is in flight; false if `timeout` seconds passed first.
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout))
        state.lock()
        idleWaiters += 1
        defer {
            idleWaiters -= 1
            state.unlock()
        }
        while inFlightCount > 0 {
            if !state.wait(until: deadline) {
                return inFlightCount == 0
            }
        }
        return true
    }

    /// Stops the daemon and closes every connection. Requests still waiting for the
    /// handler are abandoned (their later `respond` calls do nothing).
    public func stop() {
        // First the watch thread (it resumes connections under resumeLock, held below).
        watch.stop()
        resumeLock.withLock { _ in stopDaemon() }
    }

    /// `stop()` once the watch thread is gone, `resumeLock` held.
    private func stopDaemon() {
        state.lock()
        guard let d = daemon, !stopping else {
            state.unlock()
            return
        }
        stopping = true
        state.unlock()
        // No resume is claimed from now on; the ones under way finish.
        while resuming.load(ordering: .acquiring) > 0 { sched_yield() }
        state.lock()
        // libmicrohttpd must not be stopped with suspended connections: resume them all.
        var toResume: [RequestContext] = []
        for ctx in parked.values where ctx.phase == .suspended {
            ctx.phase = .resumed
            toResume.append(ctx)
        }
        state.unlock()

        let shuttingDown = prepare(refusalResponse(.shuttingDown), origin: nil, acceptsGzip: false)
        state.lock()
        for ctx in toResume where ctx.pending == nil {
            ctx.pending = shuttingDown
        }
        state.unlock()
        for ctx in toResume {
            MHD_resume_connection(ctx.connection)
        }

        MHD_stop_daemon(d)
        shared.removeAll()

        state.lock()
        daemon = nil
        let quiescedFD = quiescedSocket
        quiescedSocket = -1
        let sink = logSink
        logSink = nil
        parked.removeAll()
        inFlightCount = 0
        state.broadcast()
        state.unlock()

        // After MHD_quiesce_daemon the listening socket is ours to close; otherwise
        // MHD_stop_daemon closed it.
        if quiescedFD >= 0 {
            close(quiescedFD)
        }
        if let sink {
            sink.deinitialize(count: 1)
            sink.deallocate()
        }
        logger.info("HTTP server stopped")
    }

    /// libmicrohttpd's own log messages (and, while starting, why it failed).
    func log(message: String) {
        state.lock()
        if capturingStartup {
            startupMessages.append(message)
        }
        state.unlock()
        logger.notice("libmicrohttpd: \(AccessLine.escaped(message, keepSpaces: true))")
    }
}
