import CMicroHTTPD
import Dispatch
import Foundation
import Logging

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
/// The server itself answers, without calling the handler: `OPTIONS` (CORS preflight,
/// 204), bodies over `maxBodyBytes` (413 with `errorBody(413, "too_large", …)`).
/// It adds CORS headers and gzip-compresses large bodies for clients that accept it.
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Address to listen on: "127.0.0.1", "0.0.0.0", "::", "localhost", …
        public var host: String = "127.0.0.1"
        /// 0 picks a free port (see `boundPort`).
        public var port: Int = 8080
        /// Larger request bodies are answered with 413 and never buffered.
        public var maxBodyBytes: Int = 4 << 20
        /// Open connections at most (MHD_OPTION_CONNECTION_LIMIT, split among the threads);
        /// at the limit libmicrohttpd stops accepting, so more wait in the listen backlog.
        public var maxConnections: Int = 1024
        /// A connection idle (or stalled mid-request) this long is closed. Does not run
        /// while the handler works on a request.
        public var connectionTimeoutSeconds: Int = 10
        /// libmicrohttpd's own polling threads (MHD_OPTION_THREAD_POOL_SIZE).
        public var threads: Int = 2
        /// Origins given CORS access; "*" allows any.
        public var corsAllowedOrigins: [String] = ["*"]
        /// Response bodies at least this long are gzip-compressed for clients that accept
        /// it.
        public var gzipMinimumBytes: Int = 1024

        public init(host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 4 << 20,
                    maxConnections: Int = 1024, connectionTimeoutSeconds: Int = 10, threads: Int = 2,
                    corsAllowedOrigins: [String] = ["*"], gzipMinimumBytes: Int = 1024) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.maxConnections = maxConnections
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.threads = threads
            self.corsAllowedOrigins = corsAllowedOrigins
            self.gzipMinimumBytes = gzipMinimumBytes
        }
    }

    /// Called on a libmicrohttpd thread once a request is complete. It must return at once
    /// and call `respond` exactly once, from any thread, before or after returning (a
    /// second call is ignored with a warning; calls after `stop()` do nothing). It must
    /// not call `stop()` itself on that thread.
    public typealias Handler = @Sendable (HTTPRequest, _ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void
    /// Builds the JSON error body of the wire format for errors the server answers itself.
    public typealias ErrorBody = @Sendable (_ status: Int, _ code: String, _ message: String) -> HTTPResponse

    public let configuration: Configuration
    let logger: Logger
    /// Whether `logger` lets the access lines (info) through; read once (reading a
    /// Logger's level copies its handler, and this is asked once per request).
    let logsAccess: Bool
    let errorBody: ErrorBody
    let handler: Handler

    /// Called (on a libmicrohttpd thread) once for each finished request, with what the
    /// access log line says; e.g. for metrics. Set it before `start()`.
    public var accessLogHook: (@Sendable (HTTPAccessLogEntry) -> Void)?

    /// When set, the access log line goes here instead of through `logger` (still only when
    /// `logger.logLevel` lets info through): `message` is exactly the text `logger.info`
    /// would get and `remote` its one metadata value ("remote"). For a log handler that
    /// writes such lines cheaper than a swift-log record. Set it before `start()`.
    public var accessLogWriter: (@Sendable (_ message: UnsafeRawBufferPointer, _ remote: String) -> Void)?

    // All mutable state, the server's and every RequestContext's, is guarded by `state`.
    // It is never held while calling into libmicrohttpd.
    private let state = NSCondition()
    private var daemon: OpaquePointer?
    private var listenSocket: ListenSocket?
    private var quiescedSocket: Int32 = -1
    private var started = false
    private var quiesced = false
    private var stopping = false
    /// Requests handed to the handler and not completed yet.
    private var inFlightCount = 0
    /// Those of them whose connection was (or is being) suspended: what stop() resumes.
    /// Requests answered while the handler runs never get here.
    private var parked: [ObjectIdentifier: RequestContext] = [:]
    /// Threads in waitUntilIdle (completions only wake waiters when there are some).
    private var idleWaiters = 0
    private var startupMessages: [String] = []
    private var capturingStartup = false
    /// Held around every MHD_resume_connection made from outside libmicrohttpd's threads,
    /// and by stop() around MHD_stop_daemon, so that no resume can hit a stopped daemon.
    private let resumeLock = NSLock()
    private var logSink: UnsafeMutablePointer<loom_log_sink>?
    /// libmicrohttpd responses kept for `HTTPResponse.reuseKey`s.
    private let shared = SharedResponses()

    /// Discarded body bytes accepted after a chunked body went over the limit, before
    /// the connection is closed without an answer.
    private var discardAllowance: Int { max(64 << 10, min(configuration.maxBodyBytes, 1 << 20)) }

    public init(configuration: Configuration, logger: Logger,
                errorBody: @escaping ErrorBody, handler: @escaping Handler) {
        self.configuration = configuration
        self.logger = logger
        self.logsAccess = logger.logLevel <= .info
        self.errorBody = errorBody
        self.handler = handler
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
        flags |= loom_mhd_has_epoll() != 0 ? MHD_USE_EPOLL.rawValue : MHD_USE_POLL.rawValue

        state.lock()
        capturingStartup = true
        startupMessages = []
        state.unlock()

        let cls = Unmanaged.passUnretained(self).toOpaque()
        let d = loom_mhd_start(
            flags, socket.fd,
            mhdAccessCallback, cls,
            mhdCompletedCallback, cls,
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

    /// Requests handed to the handler whose response has not been fully sent yet.
    public var inFlight: Int {
        state.lock()
        defer { state.unlock() }
        return inFlightCount
    }

    /// Stops accepting connections: from now on the kernel refuses new ones. Requests
    /// in flight and open connections are still served; responses from now on carry
    /// `Connection: close`.
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
        resumeLock.lock()
        defer { resumeLock.unlock() }

        state.lock()
        guard let d = daemon, !stopping else {
            state.unlock()
            return
        }
        stopping = true
        // libmicrohttpd must not be stopped with suspended connections: resume them all.
        var toResume: [RequestContext] = []
        for ctx in parked.values where ctx.phase == .suspended {
            ctx.phase = .resumed
            toResume.append(ctx)
        }
        state.unlock()

        let shuttingDown = prepare(errorBody(503, "overloaded", "the server is shutting down"),
                                   origin: nil, acceptsGzip: false)
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

    // MARK: - libmicrohttpd callbacks

    fileprivate func log(message: String) {
        state.lock()
        if capturingStartup {
            startupMessages.append(message)
        }
        state.unlock()
        logger.notice("libmicrohttpd: \(message)")
    }

    fileprivate func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                            uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>,
                            conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = conCls.pointee else {
            return beginRequest(connection: connection, url: url, method: method, conCls: conCls)
        }
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadDataSize.pointee != 0 {
            return receive(ctx, data: uploadData, size: uploadDataSize)
        }
        return finishRequest(ctx)
    }

    fileprivate func completed(conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                               termination: MHD_RequestTerminationCode) {
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()

        state.lock()
        ctx.phase = .completed
        ctx.pending = nil
        ctx.body = []
        if ctx.inFlight {
            ctx.inFlight = false
            if ctx.parked { parked.removeValue(forKey: ObjectIdentifier(ctx)) }
            inFlightCount = max(0, inFlightCount - 1)
            if inFlightCount == 0 && idleWaiters > 0 { state.broadcast() }
        }
        let hook = accessLogHook
        let writer = accessLogWriter
        state.unlock()

        let outcome: String
        switch termination {
        case .REQUEST_TERMINATED_COMPLETED_OK: outcome = "ok"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: outcome = "timeout"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: outcome = "shutdown"
        case .REQUEST_TERMINATED_READ_ERROR, .REQUEST_TERMINATED_CLIENT_ABORT: outcome = "client_closed"
        default: outcome = "error"
        }
        let sent = outcome == "ok"
        let status = sent ? ctx.sentStatus : 0
        let bytes = sent ? ctx.sentBytes : 0
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds &- ctx.started) / 1_000_000
        if logsAccess {
            // "METHOD PATH STATUS BYTESB M.Tms[ OUTCOME]", one decimal of milliseconds.
            let tenths = Int((milliseconds * 10).rounded())
            let room = AccessLine.room(for: ctx.method, ctx.path, outcome)
            withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
                var line = AccessLine(buffer)
                line.append(ctx.method); line.append(" "); line.append(ctx.path); line.append(" ")
                line.append(status); line.append(" "); line.append(bytes); line.append("B ")
                line.append(tenths / 10); line.append("."); line.append(tenths % 10); line.append("ms")
                if !sent { line.append(" "); line.append(outcome) }
                if let writer {
                    writer(line.bytes, ctx.remoteAddress)
                } else {
                    logger.info("\(String(decoding: line.bytes, as: UTF8.self))", metadata: ["remote": .string(ctx.remoteAddress)])
                }
            }
        }
        if let hook {
            hook(HTTPAccessLogEntry(method: ctx.method, path: ctx.path, status: status, bytes: bytes,
                                    milliseconds: milliseconds, remoteAddress: ctx.remoteAddress,
                                    handled: ctx.handled, outcome: outcome))
        }
    }

    // MARK: - request phases (on libmicrohttpd's threads)

    /// First call: headers are in, no body yet.
    private func beginRequest(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                              conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let ctx = RequestContext(connection: connection,
                                 method: method.map { String(cString: $0) } ?? "",
                                 path: url.map { String(cString: $0) } ?? "/")
        if let address = loom_mhd_client_address(connection) {
            ctx.remoteAddress = numericHost(address)
        }
        ctx.origin = headerValue(connection, "Origin")
        if let acceptEncoding = MHD_lookup_connection_value(connection, .HEADER_KIND, "Accept-Encoding") {
            ctx.acceptsGzip = Gzip.accepts(String(cString: acceptEncoding))
        }
        conCls.pointee = Unmanaged.passRetained(ctx).toOpaque()

        if let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
           let (length, overflow) = Self.contentLength(declared) {
            if overflow || (length ?? 0) > UInt64(max(0, configuration.maxBodyBytes)) {
                ctx.tooLarge = true
                // Queued before any body byte is read: libmicrohttpd discards the body and
                // closes the connection after the answer.
                return queue(ctx, tooLargeResponse(ctx))
            }
            if let length, length > 0 {
                ctx.body.reserveCapacity(Int(length))
            }
        }
        return .YES
    }

    /// A declared Content-Length, trimmed of spaces and tabs: nil when it is empty; else the
    /// length (nil if it is not a number) and whether it is all digits but too large.
    static func contentLength(_ value: UnsafePointer<CChar>) -> (UInt64?, Bool)? {
        // Plain digits (what every client sends) without making a String.
        var p = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
        while p.pointee == 0x20 || p.pointee == 0x09 { p += 1 }
        var n: UInt64 = 0
        var digits = 0
        while p.pointee >= 0x30 && p.pointee <= 0x39 && digits < 19 {
            n = n * 10 + UInt64(p.pointee - 0x30)
            digits += 1
            p += 1
        }
        var q = p
        while q.pointee == 0x20 || q.pointee == 0x09 { q += 1 }
        if digits > 0 && q.pointee == 0 && !(p.pointee >= 0x30 && p.pointee <= 0x39) { return (n, false) }
        // Anything else: the general rules.
        let declared = String(cString: value).trimmingWhitespace()
        guard !declared.isEmpty else { return nil }
        let length = UInt64(declared)
        let overflow = length == nil && declared.allSatisfy { $0 >= "0" && $0 <= "9" }
        return (length, overflow)
    }

    /// A piece of the body.
    private func receive(_ ctx: RequestContext, data: UnsafePointer<CChar>?,
                         size: UnsafeMutablePointer<Int>) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        if ctx.tooLarge || ctx.method == "OPTIONS" {
            ctx.discarded += count
            if ctx.discarded > discardAllowance {
                logger.notice("closing connection: request body far over the limit",
                              metadata: ["path": .string(ctx.path), "remote": .string(ctx.remoteAddress)])
                return .NO
            }
            return .YES
        }
        guard let data else { return .NO }
        if count > configuration.maxBodyBytes - ctx.body.count {
            // Chunked body over the limit (a declared length was checked up front). The
            // answer cannot be queued while upload data is pending, so drop what we have,
            // discard the rest and answer 413 at the end of the body.
            ctx.tooLarge = true
            ctx.body = []
            ctx.discarded = count
            return .YES
        }
        ctx.body.append(contentsOf: UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: count))
        return .YES
    }

    /// The body is complete (or libmicrohttpd calls again after a resume).
    private func finishRequest(_ ctx: RequestContext) -> MHD_Result {
        state.lock()
        switch ctx.phase {
        case .receiving:
            state.unlock()
            if ctx.tooLarge {
                return queue(ctx, tooLargeResponse(ctx))
            }
            if ctx.method == "OPTIONS" {
                // Answered here, after its body (if any) was read, so that the
                // connection can be kept alive.
                return queue(ctx, preflight(ctx))
            }
            return dispatch(ctx)
        case .resumed, .dispatched:
            if let pending = ctx.pending {
                ctx.phase = .answered
                state.unlock()
                return queue(ctx, pending)
            }
            ctx.phase = .suspending
            park(ctx)
            state.unlock()
            return suspend(ctx)
        case .suspending, .suspended:
            // Not expected: libmicrohttpd does not call a suspended connection.
            state.unlock()
            return .YES
        case .answered, .completed:
            state.unlock()
            return .NO
        }
    }

    private func dispatch(_ ctx: RequestContext) -> MHD_Result {
        let connection = ctx.connection
        var request = HTTPRequest(
            method: ctx.method == "HEAD" ? "GET" : ctx.method,
            path: ctx.path,
            query: loom_mhd_count_values(connection, .GET_ARGUMENT_KIND) > 0
                ? collectValues(connection, kind: .GET_ARGUMENT_KIND, lowercaseKeys: false, join: false) : [:],
            rawHeaders: rawValues(connection, kind: .HEADER_KIND),
            body: [],
            remoteAddress: ctx.remoteAddress)
        swap(&request.body, &ctx.body)

        state.lock()
        if stopping {
            state.unlock()
            return .NO
        }
        ctx.phase = .dispatched
        ctx.handled = true
        ctx.inFlight = true
        inFlightCount += 1
        state.unlock()

        // Weak: a respond closure kept by someone must not keep the server alive.
        handler(request) { [weak self] response in
            self?.respond(ctx, response)
        }

        state.lock()
        if let pending = ctx.pending { // answered synchronously
            ctx.phase = .answered
            state.unlock()
            return queue(ctx, pending)
        }
        ctx.phase = .suspending
        park(ctx)
        state.unlock()
        return suspend(ctx)
    }

    /// Notes a request whose connection gets suspended (state lock held).
    private func park(_ ctx: RequestContext) {
        if !ctx.parked {
            ctx.parked = true
            parked[ObjectIdentifier(ctx)] = ctx
        }
    }

    /// Suspends the connection until `respond`; ctx.phase is `.suspending`.
    private func suspend(_ ctx: RequestContext) -> MHD_Result {
        MHD_suspend_connection(ctx.connection)
        state.lock()
        // The answer (or stop()) may have come while we were suspending: then nobody
        // else will resume, so resume here (we are on the daemon's own thread, so the
        // daemon is alive).
        let resumeNow = ctx.pending != nil || stopping
        let needsShutdownAnswer = resumeNow && ctx.pending == nil
        ctx.phase = resumeNow ? .resumed : .suspended
        state.unlock()
        guard resumeNow else { return .YES }
        if needsShutdownAnswer {
            let shuttingDown = prepare(errorBody(503, "overloaded", "the server is shutting down"),
                                       origin: ctx.origin, acceptsGzip: false)
            state.lock()
            if ctx.pending == nil { ctx.pending = shuttingDown }
            state.unlock()
        }
        MHD_resume_connection(ctx.connection)
        return .YES
    }

    // MARK: - answering (any thread)

    private func respond(_ ctx: RequestContext, _ response: HTTPResponse) {
        state.lock()
        if ctx.handlerResponded {
            state.unlock()
            logger.warning("respond called more than once for a request; ignored",
                           metadata: ["path": .string(ctx.path)])
            return
        }
        ctx.handlerResponded = true
        let origin = ctx.origin
        let acceptsGzip = ctx.acceptsGzip
        let gone = ctx.phase == .completed || ctx.pending != nil
        state.unlock()
        if gone { return }

        // Compression and headers are done here, on the handler's thread (or found done).
        let prepared = reuseKeyed(response, origin: origin, acceptsGzip: acceptsGzip)
            ?? prepare(response, origin: origin, acceptsGzip: acceptsGzip)

        state.lock()
        if ctx.phase == .completed || ctx.pending != nil {
            state.unlock()
            return
        }
        ctx.pending = prepared
        let needsResume = ctx.phase == .suspended
        state.unlock()
        guard needsResume else { return } // the access handler will pick it up

        resumeLock.lock()
        state.lock()
        let claimed = ctx.phase == .suspended && !stopping
        if claimed { ctx.phase = .resumed }
        state.unlock()
        if claimed {
            // The connection is suspended, hence alive; the next access-handler call
            // for it queues ctx.pending.
            MHD_resume_connection(ctx.connection)
        }
        resumeLock.unlock()
    }

    /// The prepared response for a response with a reuse key: the shared one if there is
    /// one; else prepared now and shared from now on (nil when it cannot be shared).
    private func reuseKeyed(_ response: HTTPResponse, origin: String?, acceptsGzip: Bool) -> PreparedResponse? {
        guard let key = response.reuseKey else { return nil }
        let allowOrigin = allowedOrigin(origin)
        if let found = shared.find(key, allowedOrigin: allowOrigin, acceptsGzip: acceptsGzip) {
            return PreparedResponse(status: found.prepared.status, headers: [], body: [], close: false, shared: found)
        }
        var prepared = prepare(response, origin: origin, acceptsGzip: acceptsGzip)
        if !prepared.close, prepared.body.count <= SharedResponses.maxBodyBytes,
           let made = SharedResponse(key: key, allowedOrigin: allowOrigin, acceptsGzip: acceptsGzip, prepared: prepared) {
            shared.insert(made)
            prepared = PreparedResponse(status: prepared.status, headers: [], body: [], close: false, shared: made)
        }
        return prepared
    }

    /// Queues a prepared response on the connection (libmicrohttpd thread only).
    private func queue(_ ctx: RequestContext, _ given: PreparedResponse) -> MHD_Result {
        state.lock()
        let closing = quiesced || stopping
        ctx.phase = .answered
        state.unlock()

        if let sharedResponse = given.shared {
            if !closing {
                ctx.sentStatus = sharedResponse.prepared.status
                ctx.sentBytes = sharedResponse.prepared.body.count
                let result = MHD_queue_response(ctx.connection, UInt32(sharedResponse.prepared.status),
                                                sharedResponse.response)
                if result == .NO {
                    logger.error("cannot queue a response", metadata: [
                        "path": .string(ctx.path), "status": .stringConvertible(sharedResponse.prepared.status)])
                }
                return result
            }
            // Closing: this answer carries `Connection: close`, so it gets its own response.
            return queue(ctx, sharedResponse.prepared, closing: true)
        }
        return queue(ctx, given, closing: closing)
    }

    private func queue(_ ctx: RequestContext, _ prepared: PreparedResponse, closing: Bool) -> MHD_Result {
        let body = prepared.body
        let response: OpaquePointer? = body.withUnsafeBytes { buffer in
            // Copied by libmicrohttpd (and never written).
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                            .RESPMEM_MUST_COPY)
        }
        guard let response else {
            logger.error("cannot create a response", metadata: ["path": .string(ctx.path)])
            return .NO
        }
        defer { MHD_destroy_response(response) }
        for (name, value) in prepared.headers {
            if MHD_add_response_header(response, name, value) == .NO {
                logger.warning("response header rejected by libmicrohttpd: \(name)",
                               metadata: ["path": .string(ctx.path)])
            }
        }
        if closing || prepared.close {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
        ctx.sentStatus = prepared.status
        ctx.sentBytes = body.count
        let result = MHD_queue_response(ctx.connection, UInt32(prepared.status), response)
        if result == .NO {
            logger.error("cannot queue a response", metadata: ["path": .string(ctx.path),
                                                               "status": .stringConvertible(prepared.status)])
        }
        return result
    }

    // MARK: - responses the server builds

    struct PreparedResponse {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var close: Bool
        /// A libmicrohttpd response made once (status, headers and body are in it).
        var shared: SharedResponse? = nil
    }

    static let exposedHeaders = "X-Layout-Cache, X-Layout-Key"
    static let allowedMethods = "GET, POST, OPTIONS"
    static let allowedHeaders = "Content-Type, Accept, Accept-Encoding"
    static let preflightMaxAge = "86400"

    /// Access-Control-Allow-Origin for this origin, or nil if it is not allowed.
    private func allowedOrigin(_ origin: String?) -> String? {
        guard let origin, !origin.isEmpty else { return nil }
        if configuration.corsAllowedOrigins.contains("*") { return "*" }
        return configuration.corsAllowedOrigins.contains(origin) ? origin : nil
    }

    private var corsVariesByOrigin: Bool {
        !configuration.corsAllowedOrigins.contains("*") && !configuration.corsAllowedOrigins.isEmpty
    }

    private func preflight(_ ctx: RequestContext) -> PreparedResponse {
        var headers: [(String, String)] = [("Allow", "GET, HEAD, POST, OPTIONS")]
        if let allow = allowedOrigin(ctx.origin) {
            headers.append(("Access-Control-Allow-Origin", allow))
            headers.append(("Access-Control-Allow-Methods", Self.allowedMethods))
            headers.append(("Access-Control-Allow-Headers", Self.allowedHeaders))
            headers.append(("Access-Control-Max-Age", Self.preflightMaxAge))
        }
        if corsVariesByOrigin {
            headers.append(("Vary", "Origin"))
        }
        return PreparedResponse(status: 204, headers: headers, body: [], close: false)
    }

    private func tooLargeResponse(_ ctx: RequestContext) -> PreparedResponse {
        var prepared = prepare(errorBody(413, "too_large",
                                         "request body larger than \(configuration.maxBodyBytes) bytes"),
                               origin: ctx.origin, acceptsGzip: false)
        prepared.close = true
        return prepared
    }

    /// Adds CORS headers and compresses; drops headers libmicrohttpd owns.
    func prepare(_ response: HTTPResponse, origin: String?, acceptsGzip: Bool) -> PreparedResponse {
        let status = (100...599).contains(response.status) ? response.status : 500
        var headers: [(String, String)] = []
        headers.reserveCapacity(response.headers.count + 3)
        var vary: [String] = []
        var close = false
        var hasEncoding = false
        var hasAllowOrigin = false
        for (name, value) in response.headers {
            switch asciiLowercased(name) {
            case "content-length", "transfer-encoding":
                continue
            case "connection":
                if value.lowercased().contains("close") { close = true }
                continue
            case "vary":
                vary.append(contentsOf: value.split(separator: ",").map { $0.trimmingWhitespace() })
                continue
            case "content-encoding":
                hasEncoding = true
            case "access-control-allow-origin":
                hasAllowOrigin = true
            default:
                break
            }
            headers.append((name, value))
        }

        if !hasAllowOrigin, let allow = allowedOrigin(origin) {
            headers.append(("Access-Control-Allow-Origin", allow))
            headers.append(("Access-Control-Expose-Headers", Self.exposedHeaders))
        }
        if corsVariesByOrigin {
            vary.append("Origin")
        }

        var body = response.body
        if !hasEncoding, status != 204, status != 304, body.count >= max(0, configuration.gzipMinimumBytes),
           !body.isEmpty {
            vary.append("Accept-Encoding")
            if acceptsGzip, let compressed = Gzip.compress(body), compressed.count < body.count {
                body = compressed
                headers.append(("Content-Encoding", "gzip"))
            }
        }
        if vary.count == 1 {
            if !vary[0].isEmpty { headers.append(("Vary", vary[0])) }
        } else if !vary.isEmpty {
            var seen = Set<String>()
            let unique = vary.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
            headers.append(("Vary", unique.joined(separator: ", ")))
        }
        return PreparedResponse(status: status, headers: headers, body: body, close: close)
    }

    /// `name.lowercased()` when it is one of the header names `prepare` treats specially,
    /// else "" — compared without making a lower-cased copy.
    private func asciiLowercased(_ name: String) -> String {
        let candidate: StaticString
        switch name.utf8.count {
        case 14: candidate = "content-length"
        case 17: candidate = "transfer-encoding"
        case 10: candidate = "connection"
        case 4: candidate = "vary"
        case 16: candidate = "content-encoding"
        case 27: candidate = "access-control-allow-origin"
        default: return ""
        }
        var name = name
        let match: Bool? = name.withUTF8 { u in
            for i in 0..<u.count {
                var b = u[i]
                if b >= 0x80 { return nil }
                if b >= 65 && b <= 90 { b |= 0x20 }
                if b != candidate.utf8Start[i] { return false }
            }
            return true
        }
        switch match {
        case true?: return candidate.description
        case false?: return ""
        case nil: return name.lowercased() // not ASCII: Unicode rules decide
        }
    }

    // MARK: - reading request values

    private func headerValue(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    /// Every value of one kind, copied as received into one buffer.
    private func rawValues(_ connection: OpaquePointer, kind: MHD_ValueKind) -> RawValues {
        var capacity = 512
        while true {
            var needed = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                needed = loom_mhd_collect_values(connection, kind, buffer.baseAddress, buffer.count)
                initialized = needed <= buffer.count ? needed : 0
            }
            if needed <= capacity { return RawValues(bytes: bytes) }
            capacity = needed
        }
    }

    private func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind,
                               lowercaseKeys: Bool, join: Bool) -> [String: String] {
        let box = ValueCollector(lowercaseKeys: lowercaseKeys, join: join)
        let unmanaged = Unmanaged.passRetained(box)
        defer { unmanaged.release() }
        _ = MHD_get_connection_values(connection, kind, mhdValueIterator, unmanaged.toOpaque())
        return box.values
    }
}

// MARK: - per-request state

/// One request on a connection. Mutable fields after dispatch are guarded by the
/// server's `state` lock; before dispatch only the libmicrohttpd thread touches it.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        case receiving, dispatched, suspending, suspended, resumed, answered, completed
    }

    let connection: OpaquePointer
    let method: String
    let path: String
    let started = DispatchTime.now().uptimeNanoseconds
    var remoteAddress = ""
    var origin: String?
    var acceptsGzip = false
    var body: [UInt8] = []
    var tooLarge = false
    var discarded = 0
    var handled = false
    /// Counted in `inFlightCount`; in `parked`.
    var inFlight = false
    var parked = false

    var phase: Phase = .receiving
    var pending: HTTPServer.PreparedResponse?
    var handlerResponded = false

    var sentStatus = 0
    var sentBytes = 0

    init(connection: OpaquePointer, method: String, path: String) {
        self.connection = connection
        self.method = method
        self.path = path
    }
}

private final class ValueCollector {
    let lowercaseKeys: Bool
    let join: Bool
    var values: [String: String] = [:]

    init(lowercaseKeys: Bool, join: Bool) {
        self.lowercaseKeys = lowercaseKeys
        self.join = join
    }

    func add(_ key: String, _ value: String) {
        let k = lowercaseKeys ? key.lowercased() : key
        if join, let existing = values[k] {
            values[k] = existing + ", " + value
        } else {
            values[k] = value
        }
    }
}

// MARK: - C callbacks

private let mhdAccessCallback: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection: connection, url: url, method: method, uploadData: uploadData,
                         uploadDataSize: uploadDataSize, conCls: conCls)
}

private let mhdCompletedCallback: MHD_RequestCompletedCallback = { cls, _, conCls, termination in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.completed(conCls: conCls, termination: termination)
}

private let mhdValueIterator: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let box = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    box.add(String(cString: key), value.map { String(cString: $0) } ?? "")
    return .YES
}

private let mhdLogCallback: loom_log_fn = { ctx, message in
    guard let ctx, let message else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(ctx).takeUnretainedValue()
    server.log(message: String(cString: message))
}
